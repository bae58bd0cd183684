import { describe, expect, it } from 'vitest';
import { KpaDecider, type KpaObservation } from './kpa-decider.ts';
import { KPA_DEFAULTS, type KpaSettings, kpaSettings } from './kpa-settings.ts';
import { MetricWindow } from './metric-window.ts';

// knative/serving pkg/autoscaler/scaling/autoscaler_test.go, with a fake clock (ms).
const S = (over: Partial<KpaSettings> = {}): KpaSettings => ({
  ...kpaSettings({ target: 10, targetUtilizationPercentage: 100 }, 0),
  initialScale: 0,
  ...over,
});
const obs = (nowMs: number, stable: number, panic: number, ready: number, reachable = true): KpaObservation => ({ nowMs, stable, panic, ready, reachable });

describe('kpaSettings', () => {
  it('applies the issue defaults: concurrency 100 × 70 %, 60 s window, 6 s panic, 200 %', () => {
    const s = kpaSettings({}, 0);
    expect(s.target).toBeCloseTo(70);
    expect(s.stableWindowMs).toBe(60_000);
    expect(s.panicWindowMs).toBe(6_000);
    expect(s.panicThreshold).toBe(2);
    expect(s.maxScaleUpRate).toBe(1000);
    expect(s.maxScaleDownRate).toBe(2);
    expect(s.scaleToZeroGracePeriodMs).toBe(30_000);
    expect(s.initialScale).toBe(1);
    expect(s.minScale).toBe(0);
    expect(s.activationScale).toBe(1);
  });
  it('uses containerConcurrency as the total, capped by target', () => {
    expect(kpaSettings({}, 10).target).toBeCloseTo(7);
    expect(kpaSettings({ target: 4 }, 10).target).toBeCloseTo(2.8);
    expect(kpaSettings({ target: 40 }, 10).target).toBeCloseTo(7);
  });
  it('rps: total 200 or target; never under 0.01', () => {
    expect(kpaSettings({ metric: 'rps' }, 0).target).toBeCloseTo(140);
    expect(kpaSettings({ metric: 'rps', target: 10, targetUtilizationPercentage: 50 }, 0).target).toBe(5);
    expect(kpaSettings({ target: 0.01, targetUtilizationPercentage: 1 }, 0).target).toBe(0.01);
  });
  it('per-function overrides and global defaults', () => {
    const s = kpaSettings({ window: '20s', panicWindowPercentage: 50, panicThresholdPercentage: 300, scaleDownDelay: '10s', minScale: 2, maxScale: 5, initialScale: 3, activationScale: 2, maxScaleUpRate: 3, maxScaleDownRate: 4 }, 0);
    expect(s).toMatchObject({ stableWindowMs: 20_000, panicWindowMs: 10_000, panicThreshold: 3, scaleDownDelayMs: 10_000, minScale: 2, maxScale: 5, initialScale: 3, activationScale: 2, maxScaleUpRate: 3, maxScaleDownRate: 4 });
    const g = kpaSettings({}, 0, { ...KPA_DEFAULTS, stableWindowMs: 6000, scaleToZeroGracePeriodMs: 1000, containerConcurrencyTargetPercentage: 100 });
    expect(g).toMatchObject({ stableWindowMs: 6000, panicWindowMs: 1000, scaleToZeroGracePeriodMs: 1000, target: 100 });
  });
});

describe('KpaDecider', () => {
  it('stable: desired = ceil(observed / target)', () => {
    const d = new KpaDecider(S(), 0);
    expect(d.decide(obs(1000, 50, 50, 5)).desired).toBe(5);
    expect(d.decide(obs(3000, 51, 51, 5)).desired).toBe(6);
    expect(d.decide(obs(5000, 1, 1, 6)).mode).toBe('stable');
  });

  it('scale-up rate limit: at most ceil(maxScaleUpRate × ready)', () => {
    const d = new KpaDecider(S({ maxScaleUpRate: 2, panicThreshold: 100 }), 0);
    expect(d.decide(obs(1000, 1000, 1000, 2)).desired).toBe(4);
    expect(d.decide(obs(3000, 1000, 1000, 0)).desired).toBe(2); // ready counts as at least 1
  });

  it('scale-down rate limit: at least floor(ready / maxScaleDownRate) while reachable', () => {
    const d = new KpaDecider(S(), 0);
    expect(d.decide(obs(1000, 10, 10, 10)).desired).toBe(5);
    expect(d.decide(obs(3000, 10, 10, 5)).desired).toBe(2);
    const unreachable = new KpaDecider(S(), 0);
    expect(unreachable.decide(obs(1000, 10, 10, 10, false)).desired).toBe(1);
  });

  it('enters panic when panic-desired / ready ≥ threshold and only scales up in panic', () => {
    const d = new KpaDecider(S(), 0);
    expect(d.decide(obs(1000, 10, 10, 1))).toMatchObject({ desired: 1, mode: 'stable' });
    // panic window sees 3 workers' worth on 1 ready: 300 % ≥ 200 %
    expect(d.decide(obs(3000, 12, 30, 1))).toMatchObject({ desired: 3, mode: 'panic' });
    // demand falls within the panic: no scale down
    expect(d.decide(obs(5000, 12, 10, 3))).toMatchObject({ desired: 3, mode: 'panic' });
    // more demand in panic raises it
    expect(d.decide(obs(7000, 20, 80, 3))).toMatchObject({ desired: 8, mode: 'panic' });
  });

  it('takes the stable value in panic when it is larger', () => {
    const d = new KpaDecider(S(), 0);
    expect(d.decide(obs(1000, 90, 30, 1))).toMatchObject({ desired: 9, mode: 'panic' });
  });

  it('leaves panic only after a full stable window under the threshold', () => {
    const d = new KpaDecider(S({ stableWindowMs: 60_000 }), 0);
    d.decide(obs(1000, 10, 30, 1)); // panic at t=1s
    expect(d.decide(obs(30_000, 10, 10, 3)).mode).toBe('panic');
    expect(d.decide(obs(61_000, 10, 10, 3)).mode).toBe('panic'); // exactly one window: still panic
    expect(d.decide(obs(61_001, 10, 10, 3))).toMatchObject({ mode: 'stable', desired: 1 });
  });

  it('staying over the threshold extends the panic', () => {
    const d = new KpaDecider(S({ stableWindowMs: 10_000 }), 0);
    d.decide(obs(1000, 10, 30, 1));
    d.decide(obs(9000, 10, 70, 3)); // still ≥ 200 % of 3 ready
    expect(d.decide(obs(15_000, 10, 10, 7)).mode).toBe('panic');
    expect(d.decide(obs(19_001, 10, 10, 7)).mode).toBe('stable');
  });

  it('scale-down delay holds the max over the delay window', () => {
    const d = new KpaDecider(S({ scaleDownDelayMs: 10_000, maxScaleDownRate: 100 }), 0);
    expect(d.decide(obs(1000, 50, 50, 5)).desired).toBe(5);
    expect(d.decide(obs(3000, 20, 20, 5)).desired).toBe(5);
    expect(d.decide(obs(10_999, 20, 20, 5)).desired).toBe(5);
    expect(d.decide(obs(11_000, 20, 20, 5)).desired).toBe(2);
  });

  it('activation scale raises any non-zero result, never zero', () => {
    const d = new KpaDecider(S({ activationScale: 3 }), 0);
    expect(d.decide(obs(1000, 1, 1, 0)).desired).toBe(3);
    const z = new KpaDecider(S({ activationScale: 3 }), 0);
    expect(z.decide(obs(1000, 0, 0, 0)).desired).toBe(0);
  });

  it('min and max scale bound the result', () => {
    const d = new KpaDecider(S({ minScale: 2, maxScale: 4 }), 0);
    expect(d.decide(obs(1000, 0, 0, 2)).desired).toBe(2);
    expect(d.decide(obs(3000, 100, 100, 2)).desired).toBe(4);
  });

  it('initial scale on creation, until that many workers were ready once', () => {
    const d = new KpaDecider(S({ initialScale: 2 }), 0);
    expect(d.decide(obs(1000, 0, 0, 0)).desired).toBe(2);
    expect(d.decide(obs(3000, 0, 0, 1)).desired).toBe(2);
    // reached: from now on the metric decides (still 2 until the grace allows zero... scale down rate: floor(2/2)=1)
    expect(d.decide(obs(5000, 0, 0, 2)).desired).toBe(1);
    const big = new KpaDecider(S({ initialScale: 1 }), 0);
    expect(big.decide(obs(1000, 55, 55, 0)).desired).toBe(6);
  });

  it('initial scale 0 starts nothing', () => {
    const d = new KpaDecider(S({ initialScale: 0 }), 0);
    expect(d.decide(obs(1000, 0, 0, 0)).desired).toBe(0);
  });

  it('scales to zero only after the stable window idle and then the grace period', () => {
    const d = new KpaDecider(S({ stableWindowMs: 60_000, scaleToZeroGracePeriodMs: 30_000, initialScale: 1 }), 0);
    expect(d.decide(obs(1000, 5, 5, 1)).desired).toBe(1); // active at t=1s
    // panic window empty from t=3s, stable average still > 0
    expect(d.decide(obs(3000, 4, 0, 1)).desired).toBe(1);
    // stable average reaches 0 at t=61s (idle since 1s): grace starts
    expect(d.decide(obs(61_000, 0, 0, 1)).desired).toBe(1);
    expect(d.decide(obs(90_999, 0, 0, 1)).desired).toBe(1);
    const z = d.decide(obs(91_000, 0, 0, 1));
    expect(z.desired).toBe(0);
    expect(z.reason).toMatch(/grace/);
    // stays at zero
    expect(d.decide(obs(93_000, 0, 0, 0)).desired).toBe(0);
  });

  it('demand during the grace period cancels it', () => {
    const d = new KpaDecider(S({ stableWindowMs: 6000, scaleToZeroGracePeriodMs: 4000, initialScale: 1 }), 0);
    d.decide(obs(1000, 0, 0, 1));
    expect(d.decide(obs(7000, 0, 0, 1)).desired).toBe(1); // grace from 7s
    expect(d.decide(obs(9000, 1, 1, 1)).desired).toBe(1); // a request
    expect(d.decide(obs(11_000, 0, 0, 1)).desired).toBe(1); // idle again, but not for a window
    expect(d.decide(obs(15_000, 0, 0, 1)).desired).toBe(1); // window done at 15s, new grace starts
    expect(d.decide(obs(19_000, 0, 0, 1)).desired).toBe(0);
  });

  it('a poke at zero (queued demand in the panic window) wakes the revision at once', () => {
    const d = new KpaDecider(S({ stableWindowMs: 6000, scaleToZeroGracePeriodMs: 0, initialScale: 0, activationScale: 2 }), 0);
    expect(d.decide(obs(1000, 0, 0, 0)).desired).toBe(0);
    expect(d.decide(obs(20_000, 1 / 6, 1, 0))).toMatchObject({ desired: 2 });
  });
});

describe('KpaDecider: a queue backlog (queue triggers, trigger/queue/)', () => {
  const q = (nowMs: number, backlog: number, ready: number, stable = 0, panic = stable): KpaObservation => ({ nowMs, stable, panic, ready, reachable: true, backlog });

  it('wakes a revision at zero and scales with the backlog (concurrency: a floor under both windows)', () => {
    const d = new KpaDecider(S({ stableWindowMs: 6000, scaleToZeroGracePeriodMs: 0 }), 0);
    expect(d.decide(q(1000, 0, 0)).desired).toBe(0);
    const woken = d.decide(q(2000, 5, 0));
    expect(woken.desired).toBe(1); // target 10 per worker
    expect(woken.reason).toMatch(/queue backlog 5/);
    expect(d.decide(q(4000, 35, 1)).desired).toBe(4); // panic: 4 workers' worth on 1 ready
    expect(d.decide(q(6000, 35, 4)).desired).toBe(4);
  });

  it('takes the larger of router load and backlog, never their sum (in-flight messages are router load too)', () => {
    const d = new KpaDecider(S(), 0);
    expect(d.decide(q(1000, 20, 2, 30)).desired).toBe(3);
    const e = new KpaDecider(S(), 0);
    expect(e.decide(q(1000, 30, 2, 20)).desired).toBe(3);
  });

  it('keeps the revision from zero while messages wait; zero only a stable window and the grace after the queue drained', () => {
    const d = new KpaDecider(S({ stableWindowMs: 6000, scaleToZeroGracePeriodMs: 2000, initialScale: 1 }), 0);
    expect(d.decide(q(1000, 1, 1)).desired).toBe(1);
    // no router traffic for a minute, but a message still waits (e.g. in its backoff)
    expect(d.decide(q(60_000, 1, 1)).desired).toBe(1);
    // last seen waiting at 60s: zero a window (6s) and the grace (2s) later, and not before
    expect(d.decide(q(62_000, 0, 1)).desired).toBe(1);
    expect(d.decide(q(67_999, 0, 1)).desired).toBe(1);
    const zero = d.decide(q(68_000, 0, 1));
    expect(zero.desired).toBe(0);
    expect(zero.reason).toMatch(/idle/);
  });

  it('rps metric: a backlog cannot be read as a rate, so it asks for one worker', () => {
    const d = new KpaDecider(S({ metric: 'rps', stableWindowMs: 6000, scaleToZeroGracePeriodMs: 0 }), 0);
    expect(d.decide(q(1000, 500, 0))).toMatchObject({ desired: 1, reason: expect.stringMatching(/queue backlog 500 → 1/) });
    // the rate decides beyond one worker
    expect(d.decide(q(3000, 500, 1, 35, 35)).desired).toBe(4);
  });

  it('bounds still apply: max scale caps what a backlog asks', () => {
    const d = new KpaDecider(S({ maxScale: 2 }), 0);
    expect(d.decide(q(1000, 1000, 2)).desired).toBe(2);
  });

  it('a negative or absent backlog is none', () => {
    const d = new KpaDecider(S({ stableWindowMs: 6000, scaleToZeroGracePeriodMs: 0 }), 0);
    expect(d.decide(q(1000, -3, 0)).desired).toBe(0);
    expect(d.decide(obs(2000, 0, 0, 0)).desired).toBe(0);
  });
});

describe('KpaDecider: where the activator stands (targetBurstCapacity)', () => {
  // containerConcurrency 10 → total 10 per worker (metric-target.ts).
  const T = (targetBurstCapacity?: number): KpaSettings => ({ ...kpaSettings({ targetBurstCapacity }, 10), initialScale: 0 });

  it('default 200: in the path until the ready workers have 200 to spare over the panic load', () => {
    const d = new KpaDecider(T(), 0);
    expect(d.settings.targetBurstCapacity).toBe(200);
    // 5 ready × 10 − 200 − 20 = −170
    expect(d.decide(obs(1000, 20, 20, 5)).activator).toEqual(expect.objectContaining({ inPath: true, excessBurstCapacity: -170 }));
    // 30 ready × 10 − 200 − 20 = 80
    expect(d.decide(obs(3000, 20, 20, 30)).activator).toEqual(expect.objectContaining({ inPath: false, excessBurstCapacity: 80 }));
  });

  it('positive: leaves the path when capacity is enough and comes back when a burst eats it', () => {
    const d = new KpaDecider(T(15), 0);
    const enough = d.decide(obs(1000, 5, 5, 2)); // 20 − 15 − 5 = 0
    expect(enough.activator.inPath).toBe(false);
    expect(enough.reason).toMatch(/activator out of the path: excess burst capacity ⌊2 × 10 − 15 − 5⌋ = 0 ≥ 0$/);
    const burst = d.decide(obs(3000, 5, 8, 2)); // 20 − 15 − 8 = −3
    expect(burst.activator).toEqual(expect.objectContaining({ inPath: true, excessBurstCapacity: -3 }));
    expect(burst.reason).toMatch(/activator in the path/);
  });

  it('0: only at scale zero', () => {
    const d = new KpaDecider(T(0), 0);
    expect(d.decide(obs(1000, 0, 0, 0))).toMatchObject({ desired: 0, activator: { inPath: true, excessBurstCapacity: 0 } });
    expect(d.decide(obs(3000, 500, 500, 1))).toMatchObject({ activator: { inPath: false, excessBurstCapacity: 0 } });
  });

  it('-1: always, however many workers are ready', () => {
    const d = new KpaDecider(T(-1), 0);
    expect(d.decide(obs(1000, 1, 1, 100)).activator).toEqual(expect.objectContaining({ inPath: true, excessBurstCapacity: -1 }));
    expect(d.decide(obs(3000, 0, 0, 0)).activator.inPath).toBe(true);
  });

  it('counts the wanted scale after bounds: min scale keeps it out of the path while idle', () => {
    const d = new KpaDecider({ ...T(0), minScale: 1 }, 0);
    expect(d.decide(obs(1000, 0, 0, 1))).toMatchObject({ desired: 1, activator: { inPath: false } });
  });
});

describe('MetricWindow', () => {
  it('sums sources per second and averages over the window; missing seconds are zero', () => {
    const w = new MetricWindow(60_000);
    w.record(10_000, 'a', 2);
    w.record(10_400, 'b', 3);
    w.record(10_900, 'a', 4); // replaces a's value in the same second
    expect(w.average(10_999, 6000)).toBe(7);
    w.record(11_000, 'a', 1);
    expect(w.average(11_500, 6000)).toBe(4);
    expect(w.average(15_500, 6000)).toBeCloseTo(8 / 6);
    expect(w.average(30_000, 6000)).toBe(0);
    expect(w.average(30_000, 1000)).toBe(0);
  });
  it('raise only lifts a value; no data → 0', () => {
    const w = new MetricWindow(6000);
    expect(w.average(1000, 6000)).toBe(0);
    w.record(1000, 'r', 5);
    w.raise(1200, 'r', 3);
    expect(w.average(1500, 1000)).toBe(5);
    w.raise(1200, 'r', 9);
    expect(w.average(1500, 1000)).toBe(9);
  });
});
