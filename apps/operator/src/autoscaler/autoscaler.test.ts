import { describe, expect, it } from 'vitest';
import type { Revision } from '@orrery/spec';
import { Autoscaler } from './autoscaler.ts';
import { KPA_DEFAULTS } from './kpa-settings.ts';

const rev = (autoscaling: Record<string, unknown> = {}): Revision =>
  ({ metadata: { namespace: 'ns', name: 'f-00001' }, spec: { function: 'f', template: { containerConcurrency: 0, autoscaling: { class: 'kpa', metric: 'concurrency', target: 1, targetUtilizationPercentage: 100, ...autoscaling } } } }) as unknown as Revision;
const report = (c: number, extra: Record<string, number> = {}) => [{ namespace: 'ns', function: 'f', revision: 'f-00001', averageConcurrency: c, requests: 0, windowMs: 1000, ...extra }];

function setup(ready = 0) {
  let now = 100_000;
  const changed: string[] = [];
  const state = { ready };
  const a = new Autoscaler({ defaults: { ...KPA_DEFAULTS, stableWindowMs: 6000, scaleToZeroGracePeriodMs: 2000 }, readyOf: () => state.ready, onChange: (k) => changed.push(k), now: () => now });
  return { a, changed, state, advance: (ms: number) => (now += ms) };
}

describe('Autoscaler (stats → decider → change events)', () => {
  it('starts at the initial scale and sums router replicas', () => {
    const { a, state, advance } = setup();
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(1);
    state.ready = 1;
    a.recordStats('r1', report(2));
    a.recordStats('r2', report(3));
    a.tickAll();
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(5);
    advance(1000);
    a.recordStats('r1', report(2)); // a replica reporting again in a new second
    a.tickAll();
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(5);
  });

  it('idle → zero after the window and grace; a poke wakes it at once with one change event', () => {
    const { a, changed, state, advance } = setup(1);
    a.desired('ns/f-00001', rev(), true);
    for (let i = 0; i < 10; i++) {
      advance(1000);
      a.tickAll();
    }
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(0);
    state.ready = 0;
    changed.length = 0;
    a.poke('ns', 'f-00001', 1, 'r1');
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(1);
    expect(changed).toEqual(['ns/f-00001']);
  });

  it('never looks idle while requests are queued, whatever the average says', () => {
    const { a, advance } = setup(1);
    a.desired('ns/f-00001', rev(), true);
    for (let i = 0; i < 12; i++) {
      advance(1000);
      a.recordStats('r1', report(0, { queued: 1 }));
      a.tickAll();
    }
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(1);
  });

  it('reads the queue backlog of the revision at each decision (backlogOf): wakes from zero and holds while it lasts', () => {
    let now = 100_000;
    const backlog = { n: 0 };
    const asked: string[] = [];
    const changed: string[] = [];
    const a = new Autoscaler({
      defaults: { ...KPA_DEFAULTS, stableWindowMs: 6000, scaleToZeroGracePeriodMs: 0, initialScale: 0 },
      readyOf: () => 0,
      onChange: (k) => changed.push(k),
      backlogOf: (key, fn) => (asked.push(`${key} ${fn}`), backlog.n),
      now: () => now,
    });
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(0);
    backlog.n = 3;
    now += 2000;
    a.tickAll();
    expect(a.decisionOf('ns/f-00001')?.desired).toBe(3);
    expect(a.decisionOf('ns/f-00001')?.reason).toMatch(/queue backlog 3/);
    expect(changed).toEqual(['ns/f-00001']);
    expect(asked.at(-1)).toBe('ns/f-00001 f');
  });

  it('rps metric: requests per second of the window', () => {
    const { a, state } = setup(1);
    state.ready = 1;
    a.desired('ns/f-00001', rev({ metric: 'rps', target: 10 }), true);
    a.recordStats('r1', report(0, { requests: 45, windowMs: 1000 }));
    a.tickAll();
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(5);
  });

  it('forget drops the revision: a poke then only asks for a reconcile', () => {
    const { a, changed } = setup();
    a.desired('ns/f-00001', rev(), true);
    a.forget('ns/f-00001');
    expect(a.isTracked('ns/f-00001')).toBe(false);
    a.poke('ns', 'f-00001', 3, 'r1');
    expect(changed).toEqual(['ns/f-00001']);
  });

  it('answers a stats push with where the activator stands for each tracked revision, updated every tick without a reconcile', () => {
    const { a, changed, advance } = setup(2);
    // target 10 (total 10) per worker, 2 ready, burst capacity 15: 20 − 15 − panic.
    a.desired('ns/f-00001', rev({ target: 10, targetBurstCapacity: 15 }), true);
    advance(1000);
    a.recordStats('r1', report(5));
    a.tickAll();
    const before = changed.length;
    expect(a.activatorModes([{ namespace: 'ns', revision: 'f-00001' }, { namespace: 'ns', revision: 'untracked' }])).toEqual([{ namespace: 'ns', revision: 'f-00001', inPath: false, excessBurstCapacity: 0 }]);
    advance(1000);
    a.recordStats('r1', report(5.5));
    a.tickAll(); // ⌊20 − 15 − 5.5⌋ = −1: back in the path; the scale (1) is unchanged
    expect(a.activatorModes([{ namespace: 'ns', revision: 'f-00001' }])).toEqual([{ namespace: 'ns', revision: 'f-00001', inPath: true, excessBurstCapacity: -1 }]);
    expect(changed.length).toBe(before);
    expect(a.decisionOf('ns/f-00001')).toMatchObject({ desired: 1, activator: { inPath: true } });
  });
  it('a poke counts what is in flight beside the queue: a busy revision poked at the start of a second stays in the path', () => {
    // 3 ready × 2 − burst capacity 3 = 3 to spare; 8 in flight and 1 waiting leave none.
    const { a, advance } = setup(3);
    a.desired('ns/f-00001', rev({ target: 2, targetBurstCapacity: 3 }), true);
    advance(1000);
    a.recordStats('r1', report(8, { inflight: 8, queued: 1 }));
    a.tickAll();
    expect(a.activatorModes([{ namespace: 'ns', revision: 'f-00001' }])[0]).toMatchObject({ inPath: true });
    // A new second (the panic window is 1 s here) before this router's next push: only the poke speaks for it.
    advance(1000);
    a.poke('ns', 'f-00001', 1, 'r1', 8);
    expect(a.activatorModes([{ namespace: 'ns', revision: 'f-00001' }])[0]).toMatchObject({ inPath: true, excessBurstCapacity: -6 });
    // The queue alone (an older router's poke) would have put the activator out of the path.
    advance(1000);
    a.poke('ns', 'f-00001', 1, 'r1');
    expect(a.activatorModes([{ namespace: 'ns', revision: 'f-00001' }])[0]).toMatchObject({ inPath: false });
  });
});

describe('Autoscaler metric memory', () => {
  const many = (n: number, c: number) => Array.from({ length: n }, (_, i) => ({ namespace: 'ns', function: 'f', revision: `f-${String(i).padStart(5, '0')}`, averageConcurrency: c, requests: 0, windowMs: 1000 }));

  it('holds no window for revisions nobody tracks while they are idle (a router reports every revision it ever served)', () => {
    const { a, advance } = setup();
    for (let s = 0; s < 300; s++) {
      advance(1000);
      a.recordStats('r1', many(50, 0));
      a.recordStats('r2', many(50, 0));
    }
    expect(a.heldMetrics()).toEqual({ windows: 0, seconds: 0 });
  });

  it('keeps a tracked revision to its own stable window, not the hour an untracked one may need', () => {
    const { a, advance } = setup(1);
    a.desired('ns/f-00001', rev(), true); // stable window 6 s in setup()
    for (let s = 0; s < 600; s++) {
      advance(1000);
      a.recordStats('r1', report(1));
      a.recordStats('r2', report(1));
    }
    expect(a.heldMetrics().windows).toBe(1);
    expect(a.heldMetrics().seconds).toBeLessThanOrEqual(8);
  });

  it('still starts a window for an untracked revision with demand (stats before the first reconcile)', () => {
    const { a, state } = setup();
    a.recordStats('r1', report(3));
    expect(a.heldMetrics()).toEqual({ windows: 1, seconds: 1 });
    state.ready = 1;
    a.desired('ns/f-00001', rev(), true);
    a.tickAll();
    expect(a.desired('ns/f-00001', rev(), true).desired).toBe(3);
  });

  it('a forgotten revision that routers keep reporting idle does not come back', () => {
    const { a, advance } = setup(1);
    a.desired('ns/f-00001', rev(), true);
    a.recordStats('r1', report(1));
    a.forget('ns/f-00001');
    for (let s = 0; s < 100; s++) {
      advance(1000);
      a.recordStats('r1', report(0));
    }
    expect(a.heldMetrics()).toEqual({ windows: 0, seconds: 0 });
  });
});
