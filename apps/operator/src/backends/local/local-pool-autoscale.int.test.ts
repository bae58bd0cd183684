import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { until } from '../../testing/spawn-server.ts';

// Real operator + router + pool workers; the KPA's windows shortened by flags.
const SLOW = `export default async () => { await new Promise((r) => setTimeout(r, 150)); return new Response(String(process.pid)); };`;

describe('KPA on the pool executor (real processes)', () => {
  let p: Platform;
  const specialized = () => p.endpoints().filter((e) => e.function === 'pbusy' && e.ready);
  const get = async () => {
    const res = await fetch(`${p.routerUrl}/default/pbusy/`);
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    p = await startPlatform({
      operatorArgs: ['--pool-size', '2', '--pool-idle-timeout', '60s', '--autoscaler-stable-window', '6s', '--autoscaler-tick', '500ms'],
    });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'pbusy', namespace: 'default' },
      spec: { template: { source: { inline: SLOW }, executor: 'pool', timeoutSeconds: 30, autoscaling: { target: 1, targetUtilizationPercentage: 100, maxScale: 3 } } },
    });
    await revisionReady(p, 'pbusy-00001');
    await p.publishRoutes();
  }, 90_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('a specialized pool revision under load gets more specialized workers, up to maxScale', { timeout: 90_000 }, async () => {
    expect((await get()).status).toBe(200); // cold: one specialization
    // The router learns the woken worker from the poke's answer; the endpoints file the
    // operator writes can follow a moment later on a loaded machine.
    await until(specialized, (l) => l.length >= 1, 10_000, 'the specialized worker in the endpoints file');
    // The cold request specializes one worker. On a slow machine the KPA may already add a second
    // (the request's wait in the router counts as load) — never past maxScale.
    const afterCold = specialized().length;
    expect(afterCold).toBeLessThanOrEqual(3);
    let loading = true;
    const pids = new Set<string>();
    const loops = Array.from({ length: 6 }, async () => {
      while (loading) {
        const r = await get();
        if (r.status === 200) pids.add(r.body);
      }
    });
    try {
      await until(specialized, (l) => l.length >= Math.max(2, afterCold), 60_000, 'a second specialized worker');
      const rev = await until(() => p.revision('pbusy-00001'), (r) => (r?.status?.lastDecision ?? '').length > 0, 20_000, 'decision in status');
      expect(rev!.status!.autoscalerMode).toMatch(/stable|panic/);
      await until(() => pids.size, (n) => n >= 2, 30_000, 'requests served by two workers');
    } finally {
      loading = false;
      await Promise.all(loops);
    }
    expect(specialized().length).toBeLessThanOrEqual(3);
  });
});

describe('a specialized pool worker that dies is replaced at once (real processes)', () => {
  let p: Platform;
  const PID = `export default async () => new Response(String(process.pid));`;
  const ready = () => p.endpoints().filter((e) => e.function === 'pinned' && e.ready);

  beforeAll(async () => {
    // Resync once a minute: only the executor's own notice can bring the replacement sooner.
    p = await startPlatform({ operatorArgs: ['--pool-size', '2', '--pool-idle-timeout', '120s', '--resync-seconds', '60'] });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'pinned', namespace: 'default' },
      spec: { template: { source: { inline: PID }, executor: 'pool', timeoutSeconds: 30, autoscaling: { minScale: 2, maxScale: 2 } } },
    });
    await revisionReady(p, 'pinned-00001');
    await p.publishRoutes();
  }, 90_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('kill -9 of one of two pinned workers: a new one serves within seconds, not at the next resync', { timeout: 90_000 }, async () => {
    expect((await fetch(`${p.routerUrl}/default/pinned/`)).status).toBe(200); // cold: the first specialization
    await until(ready, (l) => l.length === 2, 30_000, 'minScale 2: two specialized workers');
    const pids = new Set<number>();
    await until(async () => {
      pids.add(Number(await (await fetch(`${p.routerUrl}/default/pinned/`)).text()));
      return pids.size;
    }, (n) => n === 2, 20_000, 'both workers answering');
    const [victim, survivor] = [...pids];
    const killedAt = Date.now();
    process.kill(victim!, 'SIGKILL');
    // Two workers answer again, the dead one not among them (the replacement may be published
    // before a poll could see one worker only).
    const after = new Set<number>();
    await until(async () => {
      const res = await fetch(`${p.routerUrl}/default/pinned/`);
      if (res.status === 200) after.add(Number(await res.text()));
      return [...after].filter((pid) => pid !== victim).length;
    }, (n) => n === 2, 30_000, 'two live workers answering again');
    expect(Date.now() - killedAt).toBeLessThan(30_000); // well before the 60 s resync
    expect(ready()).toHaveLength(2);
    expect(after.has(survivor!)).toBe(true);
  });
});
