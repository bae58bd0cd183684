/**
 * Issue 20, item 1, from the worker's side, every part a real process: etcd, the
 * `orrery-registry` binary with a registry master key, and `orrery-runtime` workers.
 *
 * - A worker registers, renews and deregisters only with its revision's credential (env for
 *   local workers, a mounted file for Kubernetes ones, the specialize body for pool workers).
 * - A worker without one, or with another revision's, is refused and never listed.
 * - Function code does not find the credential in its environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential, mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { EtcdCluster } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const REGISTRY_BIN = fileURLToPath(new URL('../../registry/bin/orrery-registry.mjs', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'runtime-registration-security-'));
const key = Buffer.alloc(32, 0x3d);
const keyFile = join(dir, 'registry-master.key');
writeFileSync(keyFile, key.toString('hex'), { mode: 0o600 });
const service = (rev: string, fn = 'counter', ns = 'shop') => `orrery.functions.${ns}.${fn}.${rev}`;
const credential = (rev: string, fn = 'counter', ns = 'shop') => deriveRegistrationCredential(key, ns, service(rev, fn, ns));

let etcd: EtcdCluster;
let registry: ChildProcess;
let registryUrl = '';
const workers: RuntimeProcess[] = [];

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  registry = spawn(process.execPath, [
    REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','),
    '--registry-master-key-file', keyFile, '--require-write-tokens', '--request-timeout', '4s',
    '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128',
  ], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ORRERY_REGISTRY_ADMIN_TOKEN: 'a'.repeat(20), ORRERY_REGISTRY_REPLICATION_TOKEN: 'r'.repeat(20), ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN: 's'.repeat(20) } });
  let out = '';
  registryUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('orrery-registry did not start')), 60_000);
    registry.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening (\S+) admin/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    });
    registry.once('exit', (code) => reject(new Error(`orrery-registry exited with ${code}`)));
  });
}, 120_000);

afterAll(async () => {
  await Promise.all(workers.map((w) => stopRuntime(w)));
  if (registry && registry.exitCode === null) {
    const gone = new Promise((r) => registry.once('exit', r));
    registry.kill('SIGTERM');
    await gone;
  }
  await etcd?.close();
}, 60_000);

async function listed(svc: string, ns = 'shop'): Promise<string[]> {
  const res = await fetch(`${registryUrl}/api/v1/registry/instances?namespace=${ns}&service=${encodeURIComponent(svc)}`);
  const body = (await res.json()) as { data: { instances: Array<{ instanceId: string }> } };
  return body.data.instances.map((i) => i.instanceId);
}

const deploy = (rev: string, id: string, extra: string[] = []) => [
  '--function', 'counter', '--revision', rev, '--namespace', 'shop', '--source-file', PROBE_FIXTURE,
  '--registry-url', registryUrl, '--instance-id', id, '--lease-ttl-seconds', '3', ...extra,
];
async function worker(args: string[], env: Record<string, string> = {}): Promise<RuntimeProcess> {
  const w = await startRuntime(args, env);
  workers.push(w);
  return w;
}

describe('workers present their revision credential (real registry)', () => {
  it('with its credential in the environment a worker registers, and its code cannot read the credential', { timeout: 60_000 }, async () => {
    const w = await worker(deploy('counter-00001', 'env-w1'), { ORRERY_REGISTRY_CREDENTIAL: credential('counter-00001') });
    await eventually(async () => (await listed(service('counter-00001'))).includes('env-w1'));
    const env = (await (await fetch(`${w.url}/env`)).json()) as { env: Record<string, string | null> };
    expect(env.env.ORRERY_REGISTRY_CREDENTIAL).toBeNull();
    expect(w.stderr() + w.stdout()).not.toContain(credential('counter-00001'));
    await stopRuntime(w);
    expect(w.stderr()).toContain('deregistered from the registry');
    expect(await listed(service('counter-00001'))).toEqual([]);
  });

  it('with the mounted credential file (Kubernetes) a worker registers', { timeout: 60_000 }, async () => {
    const file = join(dir, 'registry-credential');
    writeFileSync(file, JSON.stringify({ namespace: 'shop', service: service('counter-00002'), token: credential('counter-00002') }), { mode: 0o444 });
    await worker(deploy('counter-00002', 'file-w1', ['--registry-credential-file', file]));
    await eventually(async () => (await listed(service('counter-00002'))).includes('file-w1'));
  });

  it('without a credential, or with another revision\'s, a worker is refused and never listed', { timeout: 60_000 }, async () => {
    const none = await worker(deploy('counter-00003', 'none-w1'));
    const other = await worker(deploy('counter-00003', 'other-w1'), { ORRERY_REGISTRY_CREDENTIAL: credential('counter-00001') });
    await eventually(() => none.stderr().includes('credential_required') && other.stderr().includes('credential_rejected'));
    expect(await listed(service('counter-00003'))).toEqual([]);
    // Both keep serving their traffic (the registry being unreachable or refusing never takes a worker down).
    expect((await fetch(`${none.url}/env`)).status).toBe(200);
  });

  it('a worker whose credential file is for another revision refuses to start', { timeout: 30_000 }, async () => {
    const file = join(dir, 'wrong-credential');
    writeFileSync(file, JSON.stringify({ namespace: 'shop', service: service('counter-00001'), token: credential('counter-00001') }));
    await expect(startRuntime(deploy('counter-00004', 'wrong-w1', ['--registry-credential-file', file]))).rejects.toThrow(/is for shop\/orrery.functions.shop.counter.counter-00001/);
  });

  it('a pool worker gets its credential at specialize; one for another revision is refused (400)', { timeout: 60_000 }, async () => {
    // Specialize nonces are single-use (a refused body uses one up too): one worker per attempt.
    const poolWorker = async (id: string) => {
      const nonce = mintSpecializeNonce();
      const w = await worker(['--mode', 'pool', '--admin-port', '0', '--registry-url', registryUrl, '--lease-ttl-seconds', '3', '--instance-id', id], { ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(nonce) });
      return (registryCredential: unknown) =>
        fetch(`${w.adminUrl}/v1/specialize`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${nonce}` },
          body: JSON.stringify({ namespace: 'shop', function: 'cart', revision: 'cart-00001', source: { inline: 'export default () => new Response("ok")' }, registryCredential }),
        });
    };
    const wrong = await (await poolWorker('pool-w1'))({ namespace: 'shop', service: service('cart-00002', 'cart'), token: credential('cart-00002', 'cart') });
    expect(wrong.status).toBe(400);
    expect(JSON.stringify(await wrong.json())).not.toContain(credential('cart-00002', 'cart'));
    const ok = await (await poolWorker('pool-w2'))({ namespace: 'shop', service: service('cart-00001', 'cart'), token: credential('cart-00001', 'cart') });
    expect(ok.status).toBe(200);
    await eventually(async () => (await listed(service('cart-00001', 'cart'))).includes('pool-w2'));
  });
});
