import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential } from '@orrery/auth';
import { EtcdCluster } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

// The real orrery-registry (apps/registry) on a one-member etcd, as a child process.
const REGISTRY_BIN = fileURLToPath(new URL('../../registry/bin/orrery-registry.mjs', import.meta.url));
const ETCD = process.env.ETCD_BIN ?? '/usr/bin/etcd';

let etcd: EtcdCluster | undefined;
let registry: ChildProcess | undefined;
let registryUrl: string;
let rt: RuntimeProcess | undefined;
// Writes under orrery.functions. need the revision's credential, derived from this key.
const registryKey = Buffer.alloc(32, 0x2c);
const keyFile = join(mkdtempSync(join(tmpdir(), 'runtime-registry-key-')), 'registry-master.key');
writeFileSync(keyFile, registryKey.toString('hex'));

async function startRegistry(endpoints: string[]): Promise<string> {
  const child = spawn(process.execPath, [
    REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', endpoints.join(','),
    '--admin-token', 'a-token-for-tests', '--replication-token', 'r-token-for-tests', '--prometheus-sd-token', 's-token-for-tests',
    '--request-timeout', '4s', '--registry-master-key-file', keyFile,
    '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
  ], { stdio: ['ignore', 'pipe', 'pipe'] });
  registry = child;
  let out = '';
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`orrery-registry did not start: ${err}`)), 60_000);
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+) admin \S+/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`orrery-registry exited with ${code}: ${err}`));
    });
  });
}

async function instances(service: string): Promise<{ instanceId: string; endpoints: { name: string; host: string; port: number }[]; labels: Record<string, string> }[]> {
  const res = await fetch(`${registryUrl}/api/v1/registry/instances?namespace=shop&service=${encodeURIComponent(service)}`);
  const body = (await res.json()) as { code: string; data: { instances: never[] } };
  expect(body.code).toBe('ok');
  return body.data.instances;
}

const available = existsSync(ETCD) && existsSync(REGISTRY_BIN);

beforeAll(async () => {
  if (!available) return;
  etcd = await EtcdCluster.start({ size: 1 });
  registryUrl = await startRegistry(etcd.endpoints());
}, 120_000);
afterAll(async () => {
  await stopRuntime(rt);
  if (registry && registry.exitCode === null) {
    const gone = new Promise((r) => registry!.once('exit', r));
    registry.kill('SIGTERM');
    const t = setTimeout(() => registry!.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(t);
  }
  await etcd?.close();
}, 60_000);

const credential = deriveRegistrationCredential(registryKey, 'shop', 'orrery.functions.shop.counter.counter-00001');

describe.skipIf(!available)('registration in the real orrery-registry (one etcd member)', () => {
  it('the worker appears as orrery.functions.<ns>.<fn>.<rev>, comes back after being removed, and is gone after SIGTERM', { timeout: 90_000 }, async () => {
    rt = await startRuntime([
      '--function', 'counter', '--revision', 'counter-00001', '--namespace', 'shop', '--source-file', PROBE_FIXTURE,
      '--registry-url', registryUrl, '--instance-id', 'counter-w1', '--lease-ttl-seconds', '3',
    ], { ORRERY_REGISTRY_CREDENTIAL: credential });
    const service = 'orrery.functions.shop.counter.counter-00001';
    const found = await eventually(async () => (await instances(service)).find((i) => i.instanceId === 'counter-w1'));
    expect(found.endpoints).toEqual([expect.objectContaining({ name: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) })]);
    expect(found.labels).toMatchObject({ 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' });

    // Someone removes the instance behind the worker's back: the next heartbeat hears not_found and registers again.
    const removed = await fetch(`${registryUrl}/api/v1/registry/deregister`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: JSON.stringify({ namespace: 'shop', service, instanceId: 'counter-w1' }),
    });
    expect(removed.status).toBe(200);
    await eventually(() => rt!.stderr().includes('registry no longer knows this instance'));
    await eventually(async () => (await instances(service)).some((i) => i.instanceId === 'counter-w1'));

    await stopRuntime(rt);
    expect(rt.stderr()).toContain('deregistered from the registry');
    expect(await instances(service)).toEqual([]);
  });
});
