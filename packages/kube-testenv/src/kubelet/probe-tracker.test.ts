import { describe, expect, it } from 'vitest';
import { ProbeTracker, probeTiming } from './probe-tracker.ts';

describe('probeTiming', () => {
  it('fills in the API defaults', () => {
    expect(probeTiming({})).toEqual({ initialDelayMs: 0, periodMs: 10_000, timeoutMs: 1000, successThreshold: 1, failureThreshold: 3 });
    expect(probeTiming({ initialDelaySeconds: 2, periodSeconds: 5, timeoutSeconds: 3, successThreshold: 2, failureThreshold: 1 })).toEqual({ initialDelayMs: 2000, periodMs: 5000, timeoutMs: 3000, successThreshold: 2, failureThreshold: 1 });
  });
});

describe('ProbeTracker', () => {
  it('turns ready after successThreshold successes in a row, unready after failureThreshold failures', () => {
    const t = new ProbeTracker({ successThreshold: 2, failureThreshold: 3 }, false);
    expect([t.record(true), t.result]).toEqual([false, false]);
    expect([t.record(false), t.result]).toEqual([false, false]);
    expect([t.record(true), t.record(true), t.result]).toEqual([false, true, true]);
    expect([t.record(false), t.record(false), t.result]).toEqual([false, false, true]);
    expect([t.record(true), t.record(false), t.record(false), t.result]).toEqual([false, false, false, true]);
    expect([t.record(false), t.result]).toEqual([true, false]);
  });

  it('reports a change only once', () => {
    const t = new ProbeTracker({ successThreshold: 1, failureThreshold: 1 }, true);
    expect(t.record(true)).toBe(false);
    expect(t.record(false)).toBe(true);
    expect(t.record(false)).toBe(false);
  });
});
