/**
 * Issue 21, items 4 and 6, on the real binary. The seed's configuration rule: flags, then the
 * TOML file named by --config, and every remaining field must be given — start-up fails
 * otherwise. A seed-style file (the seed's example without the Raft-only fields, which etcd
 * owns here, plus the etcd endpoints) starts the registry; one without its [runtime] and
 * [registry] sections stops it with one message naming each missing field. A [replication]
 * targets_file that cannot be used stops start-up too (replication.int.test.ts runs two regions).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster } from '@orrery/etcdcluster';
import { call, regBody, type Loose } from './testing/fixture.ts';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '../bin/orrery-registry.mjs');
const dir = mkdtempSync(join(tmpdir(), 'registry-startup-'));
let cluster: EtcdCluster;

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 1 });
}, 60_000);
afterAll(async () => {
  await cluster?.close();
}, 60_000);

const seedToml = (endpoint: string, sections: { runtime?: boolean; registry?: boolean; replication?: boolean } = {}): string =>
  [
    '[node]\nid = 1\ncluster_id = 100\nregion = "cn-sh"\ndata_dir = "data/node-1"',
    '[server]\nhttp_addr = "127.0.0.1:0"\nadmin_addr = "127.0.0.1:0"\ngrpc_addr = "0.0.0.0:19090"',
    '[auth]\nadmin_token = "stellmap-admin-token"\nreplication_token = "stellmap-replication"\nprometheus_sd_token = "stellmap-sd-token"',
    `[etcd]\nendpoints = ["${endpoint}"]`,
    sections.runtime === false ? '' : '[runtime]\nrequest_timeout = "5s"\nshutdown_timeout = "10s"',
    sections.registry === false ? '' : '[registry]\ncleanup_interval = "1s"\ncleanup_delete_limit = 128',
    sections.replication ? '[replication]\ntargets_file = "/etc/stellmapd/stellmapd-node-1-replication-targets.json"' : '',
  ].join('\n\n');

function writeConfig(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

/** Runs the binary until it prints its listening line (then SIGTERM) or exits. */
function run(args: string[]): Promise<{ code: number | null; stderr: string; httpUrl?: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  process.once('exit', () => child.kill('SIGKILL'));
  let stderr = '';
  let stdout = '';
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`neither listening nor exited in 60 s: ${stderr}`)), 60_000);
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      stdout += d;
      const m = /listening (\S+) admin/.exec(stdout);
      if (m) {
        clearTimeout(timer);
        resolve({ code: null, stderr, httpUrl: m[1], stop });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stop });
    });
  });
}

describe('start-up configuration (the seed\'s rule)', () => {
  it('a seed-style TOML file starts it; its region and cluster_id label Prometheus SD targets; with no other region scope=merged is the same set', { timeout: 90_000 }, async () => {
    const r = await run(['--config', writeConfig('full.toml', seedToml(cluster.endpoints()[0]!))]);
    try {
      expect(r.httpUrl, r.stderr).toBeDefined();
      const reg = await call(r.httpUrl!, 'POST', '/api/v1/registry/register', regBody('prod', 'order-1'));
      expect(reg.body.code).toBe('ok');
      const sdAuth = { authorization: 'Bearer stellmap-sd-token' };
      const sd = await call(r.httpUrl!, 'GET', '/internal/v1/prometheus/sd?namespace=prod', undefined, sdAuth);
      expect(sd.status).toBe(200);
      expect((sd.body as unknown as Loose[]).map((g) => [g.labels.instance_id, g.labels.region, g.labels.cluster_id])).toEqual([['order-1', 'cn-sh', '100']]);
      const merged = await call(r.httpUrl!, 'GET', '/internal/v1/prometheus/sd?namespace=prod&scope=merged', undefined, sdAuth);
      expect(merged.status).toBe(200);
      expect(merged.body).toEqual(sd.body);
    } finally {
      await r.stop();
    }
  });

  it('fields missing from both flags and file stop start-up, each named, exit code 2', { timeout: 60_000 }, async () => {
    const r = await run(['--config', writeConfig('partial.toml', seedToml(cluster.endpoints()[0]!, { runtime: false, registry: false }))]);
    expect(r.httpUrl).toBeUndefined();
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(
      'orrery-registry: missing required settings (give them in the TOML file or as flags): registry.cleanup_delete_limit (--registry-cleanup-delete-limit), registry.cleanup_interval (--registry-cleanup-interval), runtime.request_timeout (--request-timeout), runtime.shutdown_timeout (--shutdown-timeout)',
    );
    // The same fields given as flags (the seed's names) complete it.
    const ok = await run([
      '--config', writeConfig('partial2.toml', seedToml(cluster.endpoints()[0]!, { runtime: false, registry: false })),
      '--request-timeout', '5s', '--shutdown-timeout', '10s', '--registry-cleanup-interval', '1s', '--registry-cleanup-delete-limit', '128',
    ]);
    try {
      expect(ok.httpUrl, ok.stderr).toBeDefined();
    } finally {
      await ok.stop();
    }
  });

  it('a [replication] targets_file that is missing or names this very region stops start-up, saying why', { timeout: 60_000 }, async () => {
    const missing = await run(['--config', writeConfig('replication.toml', seedToml(cluster.endpoints()[0]!, { replication: true }))]);
    expect(missing.httpUrl).toBeUndefined();
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/^orrery-registry: cannot read replication targets file \/etc\/stellmapd\/stellmapd-node-1-replication-targets\.json/m);
    const targets = writeConfig('targets.json', JSON.stringify({ targets: [{ region: 'cn-sh', url: 'http://127.0.0.1:1', namespaces: ['prod'] }] }));
    const self = await run(['--config', writeConfig('replication2.toml', seedToml(cluster.endpoints()[0]!)), '--replication-targets-file', targets]);
    expect(self.code).toBe(2);
    expect(self.stderr).toContain('replication targets file: region "cn-sh" is this registry\'s own region');
  });
});
