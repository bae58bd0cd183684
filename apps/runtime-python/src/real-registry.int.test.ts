/**
 * Registration in the real orrery-registry (apps/registry on a one-member etcd), with the revision's
 * registration credential: the Python worker appears as orrery.functions.<ns>.<fn>.<rev>, registers
 * again after being removed behind its back, and is gone after SIGTERM (as the Node runtime's
 * real-registry.int.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential } from '@orrery/auth';
import { EtcdCluster } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PYTHON_PROBE, startPythonRuntime, stopPythonRuntime, type PythonRuntimeProcess } from './testing/python-runtime-process.ts';

const REGISTRY_BIN = fileURLToPath(new URL('../../registry/bin/orrery-registry.mjs', import.meta.url));
const ETCD = process.env.ETCD_BIN ?? '/usr/bin/etcd';
const available = existsSync(ETCD) && existsSync(REGISTRY_BIN);

let etcd: EtcdCluster | undefined;
let registry: ChildProcess | undefined;
let registryUrl = '';
let rt: PythonRuntimeProcess | undefined;
const keyDir = mkdtempSync(join(tmpdir(), 'runtime-python-registry-key-'));
const registryKey = Buffer.alloc(32, 0x2d);
writeFileSync(join(keyDir, 'registry-master.key'), registryKey.toString('hex'));
const SERVICE = 'orrery.functions.shop.counter.counter-00001';
const credential = deriveRegistrationCredential(registryKey, 'shop', SERVICE);

async function startRegistry(endpoints: string[]): Promise<string> {
  const child = spawn(process.execPath, [
    REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', endpoints.join(','),
    '--admin-token', 'a-token-for-tests', '--replication-token', 'r-token-for-tests', '--prometheus-sd-token', 's-token-for-tests',
    '--request-timeout', '4s', '--registry-master-key-file', join(keyDir, 'registry-master.key'),
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

type Instance = { instanceId: string; endpoints: { name: string; host: string; port: number }[]; labels: Record<string, string>; metadata: Record<string, string> };
async function instances(): Promise<Instance[]> {
  const body = (await (await fetch(`${registryUrl}/api/v1/registry/instances?namespace=shop&service=${encodeURIComponent(SERVICE)}`)).json()) as { code: string; data: { instances: Instance[] } };
  expect(body.code).toBe('ok');
  return body.data.instances;
}

beforeAll(async () => {
  if (!available) return;
  etcd = await EtcdCluster.start({ size: 1 });
  registryUrl = await startRegistry(etcd.endpoints());
}, 90_000);
afterAll(async () => {
  await stopPythonRuntime(rt);
  if (registry && registry.exitCode === null) {
    const gone = new Promise((r) => registry!.once('exit', r));
    registry.kill('SIGTERM');
    const t = setTimeout(() => registry!.kill('SIGKILL'), 5000);
    await gone;
    clearTimeout(t);
  }
  await etcd?.close();
  rmSync(keyDir, { recursive: true, force: true });
}, 60_000);

describe.skipIf(!available)('the Python runtime registers in the real orrery-registry (one etcd member)', () => {
  it('appears under its revision, comes back after being removed, and is gone after SIGTERM', { timeout: 45_000 }, async () => {
    rt = await startPythonRuntime(
      ['--function', 'counter', '--revision', 'counter-00001', '--namespace', 'shop', '--source-file', PYTHON_PROBE, '--registry-url', registryUrl, '--instance-id', 'counter-py-w1', '--lease-ttl-seconds', '3', '--container-concurrency', '2'],
      { ORRERY_REGISTRY_CREDENTIAL: credential },
    );
    const found = await eventually(async () => (await instances()).find((i) => i.instanceId === 'counter-py-w1'));
    expect(found.endpoints).toEqual([expect.objectContaining({ name: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) })]);
    expect(found.labels).toMatchObject({ 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' });
    expect(found.metadata).toMatchObject({ 'orrery.dev/container-concurrency': '2', pid: String(rt.proc.pid) });

    // Removed behind the worker's back: the next heartbeat hears not_found and registers again.
    const removed = await fetch(`${registryUrl}/api/v1/registry/deregister`, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
      body: JSON.stringify({ namespace: 'shop', service: SERVICE, instanceId: 'counter-py-w1' }),
    });
    expect(removed.status).toBe(200);
    await eventually(() => rt!.stderr().includes('registry no longer knows this instance'));
    await eventually(async () => (await instances()).some((i) => i.instanceId === 'counter-py-w1'));

    await stopPythonRuntime(rt);
    expect(rt.stderr()).toContain('deregistered from the registry');
    expect(await instances()).toEqual([]);
    expect(rt.stderr()).not.toContain(credential);
  });

  it('without the credential the registry refuses it, and it keeps serving', { timeout: 30_000 }, async () => {
    const anonymous = await startPythonRuntime(['--function', 'counter', '--revision', 'counter-00001', '--namespace', 'shop', '--source-file', PYTHON_PROBE, '--registry-url', registryUrl]);
    try {
      await eventually(() => anonymous.stderr().includes('registry register failed; still serving, will retry'));
      expect((await fetch(`${anonymous.url}/hello`)).status).toBe(200);
      expect(await instances()).toEqual([]);
    } finally {
      await stopPythonRuntime(anonymous);
    }
  });
});
