import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Revision } from '@orrery/spec';
import { type Platform, revisionReady, startPlatform } from '../testing/platform.ts';
import { until } from '../testing/spawn-server.ts';

// Real operator + router + workers; the KPA's windows shortened by flags so this runs in seconds.
const SLOW = `export default async () => { await new Promise((r) => setTimeout(r, 150)); return new Response('ok ' + process.pid); };`;

describe('KPA on the deploy executor (real processes)', () => {
  let p: Platform;
  const workersOf = (rev: string) => p.endpoints().filter((e) => e.revision === rev && e.ready);
  const get = async (path = '/default/busy/') => {
    const res = await fetch(`${p.routerUrl}${path}`);
    return { status: res.status, body: await res.text() };
  };

  beforeAll(async () => {
    p = await startPlatform({
      operatorArgs: ['--autoscaler-stable-window', '6s', '--autoscaler-scale-to-zero-grace-period', '2s', '--autoscaler-tick', '500ms'],
    });
    await p.store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'busy', namespace: 'default' },
      spec: { template: { source: { inline: SLOW }, timeoutSeconds: 30, autoscaling: { target: 1, targetUtilizationPercentage: 100, maxScale: 3 } } },
    });
    await revisionReady(p, 'busy-00001');
    await p.publishRoutes();
    await until(() => get(), (r) => r.status === 200, 30_000, 'first request through the router');
  }, 90_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('load raises the scale above one worker', { timeout: 60_000 }, async () => {
    let loading = true;
    const loops = Array.from({ length: 6 }, async () => {
      while (loading) await get();
    });
    try {
      const rev = await until(() => p.revision('busy-00001'), (r) => (r?.status?.desiredScale ?? 0) >= 2, 40_000, 'desired scale ≥ 2');
      expect(rev!.status!.lastDecision).toMatch(/per worker/);
      await until(() => workersOf('busy-00001'), (l) => l.length >= 2, 40_000, 'two ready workers');
    } finally {
      loading = false;
      await Promise.all(loops);
    }
  });

  it('idleness brings it to zero after the stable window and grace; the workers exit', { timeout: 60_000 }, async () => {
    const rev = await until(() => p.revision('busy-00001'), (r) => r?.status?.desiredScale === 0, 45_000, 'desired scale 0');
    expect(rev!.status!.lastDecision).toMatch(/grace/);
    await until(() => workersOf('busy-00001'), (l) => l.length === 0, 20_000, 'no workers');
    await until(() => p.routerEndpoints('busy'), (l) => l.length === 0, 10_000, 'the router dropped them');
    const after = await until(() => p.revision('busy-00001'), (r) => r?.status?.actualScale === 0, 20_000, 'actual 0') as Revision;
    // Still Ready: scaled to zero on purpose, the next request wakes it.
    expect(after.status!.conditions!.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'ScaledToZero' });
  });

  it('the next request is buffered by the router, wakes the revision and is served', { timeout: 60_000 }, async () => {
    expect(workersOf('busy-00001')).toHaveLength(0);
    const started = Date.now();
    const r = await get();
    expect(r.status).toBe(200);
    expect(r.body).toMatch(/^ok \d+$/);
    expect(Date.now() - started).toBeLessThan(30_000);
    // A worker served it; the test's view of the endpoints (the registry's watch) may lag a moment behind.
    await until(() => workersOf('busy-00001'), (l) => l.length >= 1, 10_000, 'the woken worker listed as ready');
  });
});
