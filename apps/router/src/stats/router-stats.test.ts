import { describe, expect, it } from 'vitest';
import { RouterStats } from './router-stats.ts';

describe('RouterStats.forgetRetired', () => {
  const setup = () => {
    let now = 0;
    const stats = new RouterStats(() => now);
    const tick = () => {
      now += 1000;
      stats.roll();
    };
    return { stats, tick };
  };

  it('drops an idle revision that left the route table and keeps routed ones', () => {
    const { stats, tick } = setup();
    stats.revision('ns/a-00001', 'ns', 'a', 'a-00001');
    stats.revision('ns/a-00002', 'ns', 'a', 'a-00002');
    tick();
    expect(stats.forgetRetired((k) => k === 'ns/a-00002')).toBe(1);
    expect([...stats.revisions.keys()]).toEqual(['ns/a-00002']);
    expect(stats.view().revisions.map((r) => r.revision)).toEqual(['a-00002']);
  });

  it('keeps a retired revision while a request is in flight or queued, or had requests in the last window', () => {
    const { stats, tick } = setup();
    const inflight = stats.revision('ns/b-00001', 'ns', 'b', 'b-00001');
    const queued = stats.revision('ns/c-00001', 'ns', 'c', 'c-00001');
    inflight.inflight = 1;
    queued.queued = 2;
    tick();
    expect(stats.forgetRetired(() => false)).toBe(0);
    inflight.inflight = 0;
    queued.queued = 0;
    // The window that just closed still shows the requests: reported once more, then dropped.
    inflight.lastWindow = { averageConcurrency: 0.5, requests: 3, windowMs: 1000 };
    expect(stats.forgetRetired(() => false)).toBe(1);
    expect([...stats.revisions.keys()]).toEqual(['ns/b-00001']);
    tick();
    expect(stats.forgetRetired(() => false)).toBe(1);
    expect(stats.revisions.size).toBe(0);
  });

  it('a revision that comes back into the table starts fresh stats', () => {
    const { stats, tick } = setup();
    stats.revision('ns/d-00001', 'ns', 'd', 'd-00001').countCode(200);
    tick();
    stats.forgetRetired(() => false);
    expect(stats.revision('ns/d-00001', 'ns', 'd', 'd-00001').codes.size).toBe(0);
  });
});
