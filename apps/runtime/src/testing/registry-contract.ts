/**
 * Registration in the real orrery-registry with the revision's registration credential: the
 * worker appears as orrery.functions.<ns>.<fn>.<rev>, registers again after being removed behind
 * its back, is gone after SIGTERM, and without the credential keeps serving unregistered.
 */
import { deriveRegistrationCredential } from '@orrery/auth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { realRegistryAvailable, startRealRegistry, type RealRegistry } from './real-registry.ts';
import { eventually, stopRuntime, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';

const SERVICE = 'orrery.functions.shop.counter.counter-00001';
type Instance = { instanceId: string; endpoints: { name: string; host: string; port: number }[]; labels: Record<string, string>; metadata: Record<string, string> };

export function registryContract(runtime: RuntimeUnderTest): void {
  describe.skipIf(!realRegistryAvailable)(`${runtime.name} registers in the real orrery-registry (one etcd member)`, () => {
    // Writes under orrery.functions. need the revision's credential, derived from this key.
    const registryKey = Buffer.alloc(32, 0x2c);
    const credential = deriveRegistrationCredential(registryKey, 'shop', SERVICE);
    let registry: RealRegistry | undefined;
    let rt: RuntimeProcess | undefined;
    const probeArgs = () => ['--function', 'counter', '--revision', 'counter-00001', '--namespace', 'shop', '--source-file', runtime.probe, '--registry-url', registry!.url];

    beforeAll(async () => {
      registry = await startRealRegistry(registryKey);
    }, 120_000);
    afterAll(async () => {
      await stopRuntime(rt);
      await registry?.stop();
    }, 60_000);

    async function instances(): Promise<Instance[]> {
      const body = (await (await fetch(`${registry!.url}/api/v1/registry/instances?namespace=shop&service=${encodeURIComponent(SERVICE)}`)).json()) as { code: string; data: { instances: Instance[] } };
      expect(body.code).toBe('ok');
      return body.data.instances;
    }

    it('appears under its revision, comes back after being removed, and is gone after SIGTERM', { timeout: 90_000 }, async () => {
      rt = await runtime.start([...probeArgs(), '--instance-id', 'counter-w1', '--lease-ttl-seconds', '3', '--container-concurrency', '2'], { ORRERY_REGISTRY_CREDENTIAL: credential });
      const found = await eventually(async () => (await instances()).find((i) => i.instanceId === 'counter-w1'));
      expect(found.endpoints).toEqual([expect.objectContaining({ name: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) })]);
      expect(found.labels).toMatchObject({ 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' });
      expect(found.metadata).toMatchObject({ 'orrery.dev/container-concurrency': '2', pid: String(rt.proc.pid) });

      // Someone removes the instance behind the worker's back: the next heartbeat hears not_found and registers again.
      const removed = await fetch(`${registry!.url}/api/v1/registry/deregister`, {
        method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${credential}` },
        body: JSON.stringify({ namespace: 'shop', service: SERVICE, instanceId: 'counter-w1' }),
      });
      expect(removed.status).toBe(200);
      await eventually(() => rt!.stderr().includes('registry no longer knows this instance'));
      await eventually(async () => (await instances()).some((i) => i.instanceId === 'counter-w1'));

      await stopRuntime(rt);
      expect(rt.stderr()).toContain('deregistered from the registry');
      expect(await instances()).toEqual([]);
      expect(rt.stderr()).not.toContain(credential);
    });

    it('without the credential the registry refuses it, and it keeps serving', { timeout: 60_000 }, async () => {
      const anonymous = await runtime.start(probeArgs());
      try {
        await eventually(() => anonymous.stderr().includes('registry register failed; still serving, will retry'));
        expect((await fetch(`${anonymous.url}/hello`)).status).toBe(200);
        expect(await instances()).toEqual([]);
      } finally {
        await stopRuntime(anonymous);
      }
    });
  });
}
