import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closedPort, RegistryStandIn } from './testing/registry-stand-in.ts';
import { eventually, PROBE_FIXTURE, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

const registry = new RegistryStandIn();
const started: RuntimeProcess[] = [];
beforeAll(() => registry.start());
afterAll(async () => {
  await Promise.all(started.map((rt) => stopRuntime(rt)));
  await registry.close();
});

describe('registration (real process against a stand-in for orrery-registry)', () => {
  it('registers once ready, heartbeats at a third of the TTL, re-registers on not_found, deregisters on SIGTERM', { timeout: 90_000 }, async () => {
    registry.calls = [];
    const rt = await startRuntime([
      '--function', 'counter', '--revision', 'counter-00001', '--namespace', 'shop', '--source-file', PROBE_FIXTURE,
      '--container-concurrency', '2', '--registry-url', registry.url, '--lease-ttl-seconds', '3', '--instance-id', 'w-1',
    ]);
    started.push(rt);
    const port = Number(new URL(rt.url).port);
    await eventually(() => registry.paths().includes('register'));
    expect(registry.calls[0]!.body).toEqual({
      namespace: 'shop', organization: 'orrery', businessDomain: 'functions', capabilityDomain: 'shop', application: 'counter',
      role: 'counter-00001', service: 'orrery.functions.shop.counter.counter-00001', instanceId: 'w-1',
      labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' },
      metadata: { 'orrery.dev/container-concurrency': '2', pid: String(rt.proc.pid) },
      endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port }],
      leaseTtlSeconds: 3,
    });
    await eventually(() => registry.paths().filter((p) => p === 'heartbeat').length >= 2);
    const hb = registry.calls.find((c) => c.path.endsWith('/heartbeat'))!;
    expect(hb.body).toEqual({ namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00001', instanceId: 'w-1', leaseTtlSeconds: 3 });

    registry.notFoundHeartbeats = 1;
    await eventually(() => registry.paths().filter((p) => p === 'register').length === 2);
    expect(rt.stderr()).toContain('registry no longer knows this instance');

    rt.kill('SIGTERM');
    expect(await rt.exited).toBe(0);
    const last = registry.calls.at(-1)!;
    expect(last.path).toBe('/api/v1/registry/deregister');
    expect(last.body).toMatchObject({ namespace: 'shop', service: 'orrery.functions.shop.counter.counter-00001', instanceId: 'w-1' });
  });

  it('keeps serving while the registry is unreachable or refusing, and registers once it answers', { timeout: 90_000 }, async () => {
    registry.calls = [];
    registry.failRegisters = 2;
    const dead = `http://127.0.0.1:${await closedPort()}`;
    const rt = await startRuntime([
      '--function', 'counter', '--revision', 'counter-00002', '--source-file', PROBE_FIXTURE,
      '--registry-url', `${dead},${registry.url}`, '--lease-ttl-seconds', '30',
    ]);
    started.push(rt);
    expect((await fetch(`${rt.url}/hello`)).status).toBe(200);
    await eventually(() => registry.calls.filter((c) => c.path.endsWith('/register')).length === 3, 60_000);
    expect(rt.stderr()).toMatch(/registry register failed; still serving, will retry/);
    const body = registry.calls.at(-1)!.body;
    expect(body.instanceId).toMatch(/^counter-00002-.+-[0-9a-f]{6}$/);
    await eventually(() => rt.stderr().includes('registered in the registry'));
    await stopRuntime(rt);
    expect(registry.calls.at(-1)!.path).toBe('/api/v1/registry/deregister');
  });
});
