import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Cluster, Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { Registers } from './testing/registers.ts';
import { bytes } from './testing/fake-syncable.ts';
import { freePort } from './testing/free-port.ts';
import { waitFor } from './testing/redis.ts';
import { entityKey } from './keys.ts';
import { createStateSync, type StateSync } from './state-sync.ts';

const children: ChildProcess[] = [];
const dirs: string[] = [];
const managers: StateSync[] = [];
let cluster: Cluster | undefined;

afterAll(async () => {
  await Promise.all(managers.map((m) => m.stop()));
  cluster?.disconnect();
  for (const c of children) {
    if (c.exitCode !== null || c.signalCode !== null) continue;
    const exited = new Promise((r) => c.once('exit', r));
    c.kill('SIGKILL');
    await exited;
  }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/**
 * Starts one cluster-enabled redis-server and waits for PONG. The ports come from freePort(),
 * which other test files (running in parallel) may take before redis binds them; redis then
 * exits at once, so a node that exits before answering is started again on fresh ports.
 */
async function startNode(): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const busPort = await freePort();
    if (busPort === port) continue;
    const dir = mkdtempSync(join(tmpdir(), 'orrery-statesync-cluster-'));
    dirs.push(dir);
    const args = ['--port', String(port), '--cluster-port', String(busPort), '--cluster-enabled', 'yes'];
    args.push('--cluster-config-file', join(dir, 'nodes.conf'), '--dir', dir, '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1');
    const child = spawn('/usr/bin/redis-server', args, { stdio: 'ignore' });
    children.push(child);
    const exited = () => child.exitCode !== null || child.signalCode !== null;
    await waitFor(() => exited() || spawnSync('redis-cli', ['-p', String(port), 'ping'], { encoding: 'utf8' }).stdout.trim() === 'PONG', 15_000, `node ${port}`);
    if (!exited()) return port;
    if (attempt >= 3) throw new Error(`redis-server exited at start three times (last on ports ${port}/${busPort}, code ${child.exitCode})`);
  }
}

async function startCluster(): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < 3; i++) ports.push(await startNode());
  const create = spawnSync('redis-cli', ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '0', '--cluster-yes'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (create.status !== 0) throw new Error(`cluster create failed: ${create.stdout}${create.stderr}`);
  for (const port of ports) {
    await waitFor(() => /cluster_state:ok/.test(spawnSync('redis-cli', ['-p', String(port), 'cluster', 'info'], { encoding: 'utf8' }).stdout), 20_000, `cluster state on ${port}`);
  }
  return ports;
}

describe('Redis Cluster', () => {
  it('keeps a namespace on one node, and two managers on an ioredis Cluster converge', { timeout: 90_000 }, async () => {
    const ports = await startCluster();
    cluster = new Cluster(ports.map((port) => ({ host: '127.0.0.1', port })), { redisOptions: { maxRetriesPerRequest: 2 } });
    cluster.on('error', () => undefined);
    await waitFor(() => cluster!.status === 'ready', 20_000, 'the cluster client');

    const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
    const a = createStateSync(cluster, { keyPrefix: 'orrery-cluster-test', syncPeriodMs: 200, env: {}, logger: quiet });
    const b = createStateSync(cluster, { keyPrefix: 'orrery-cluster-test', syncPeriodMs: 200, env: {}, logger: quiet });
    managers.push(a, b);
    const ta = new Registers('regs');
    const tb = new Registers('regs');
    a.register(ta);
    b.register(tb);
    for (let i = 0; i < 60; i++) ta.set(`k${i}`, `v${i}`); // 60 keys: several pipelines and MGETs
    a.start();
    b.start();
    await waitFor(() => tb.get('k59') === 'v59' && tb.get('k0') === 'v0', 20_000, 'B to see A over the cluster');

    // Every key of the namespace sits on exactly one master (the hash tag).
    const holders = await Promise.all(
      ports.map(async (port) => {
        const node = new Redis({ port, host: '127.0.0.1' });
        try {
          return (await node.keys('orrery-cluster-test:{regs}:e:*')).length;
        } finally {
          node.disconnect();
        }
      }),
    );
    expect(holders.filter((n) => n > 0)).toEqual([60]);

    await a.put('other-ns', 'x', bytes('1'));
    expect(await cluster.get(entityKey('orrery-cluster-test', 'other-ns', 'x'))).toBe('1');
    tb.remove('k1');
    await waitFor(() => ta.get('k1') === undefined, 20_000, 'the tombstone to reach A');
    expect(a.status().cycles.error).toBe(0);
  });
});
