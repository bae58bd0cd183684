import { describe, expect, it } from 'vitest';
import { MetricWindow } from './metric-window.ts';

/** The window as it was before zeros were dropped: every value stored, averaged the same way. */
class StoreEverything {
  private readonly buckets = new Map<number, Map<string, number>>();
  private first?: number;
  record(nowMs: number, source: string, value: number): void {
    const b = Math.floor(nowMs / 1000);
    this.first ??= b;
    const m = this.buckets.get(b) ?? new Map<string, number>();
    m.set(source, value);
    this.buckets.set(b, m);
  }
  average(nowMs: number, windowMs: number): number {
    if (this.first === undefined) return 0;
    const last = Math.floor(nowMs / 1000);
    const first = Math.max(last - Math.max(1, Math.round(windowMs / 1000)) + 1, this.first);
    let sum = 0;
    for (let b = first; b <= last; b++) for (const v of this.buckets.get(b)?.values() ?? []) sum += v;
    return sum / (last - first + 1);
  }
}

/** A small deterministic PRNG, so a failing sequence can be replayed. */
function prng(seed: number): () => number {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
}

describe('MetricWindow', () => {
  it('averages exactly as a window that stores every zero would, over random report sequences', () => {
    for (let seed = 1; seed <= 200; seed++) {
      const rnd = prng(seed);
      const w = new MetricWindow(3_600_000);
      const ref = new StoreEverything();
      let now = 1_000_000;
      for (let i = 0; i < 120; i++) {
        now += Math.floor(rnd() * 700);
        const source = rnd() < 0.5 ? 'r1' : 'r2';
        // Mostly zeros (idle revisions), some values, and a value overwritten by a zero in the same second.
        const value = rnd() < 0.6 ? 0 : Math.round(rnd() * 10);
        w.record(now, source, value);
        ref.record(now, source, value);
        for (const windowMs of [1000, 6000, 60_000]) expect(w.average(now, windowMs), `seed ${seed} step ${i} window ${windowMs}`).toBeCloseTo(ref.average(now, windowMs), 9);
      }
    }
  });

  it('stores nothing for an idle revision reported every second for an hour', () => {
    const w = new MetricWindow(3_600_000);
    for (let s = 0; s < 3600; s++) {
      w.record(s * 1000, 'r1', 0);
      w.record(s * 1000 + 10, 'r2', 0);
    }
    expect(w.storedSeconds).toBe(0);
    // …and still counts those seconds in the divisor before a full window exists.
    w.record(3600 * 1000, 'r1', 6);
    expect(w.average(3600 * 1000, 6000)).toBe(1);
  });

  it('a zero replaces an earlier value of the same second', () => {
    const w = new MetricWindow(60_000);
    w.record(5000, 'r1', 4);
    w.record(5500, 'r1', 0);
    expect(w.average(5900, 1000)).toBe(0);
    expect(w.storedSeconds).toBe(0);
  });

  it('keeps only the retention it is given, shortened at any time', () => {
    const w = new MetricWindow(3_600_000);
    for (let s = 0; s < 600; s++) w.record(s * 1000, 'r1', 1);
    expect(w.storedSeconds).toBe(600);
    w.setRetention(60_000);
    w.record(600_000, 'r1', 1);
    expect(w.storedSeconds).toBeLessThanOrEqual(62);
    expect(w.average(600_000, 60_000)).toBe(1);
  });
});
