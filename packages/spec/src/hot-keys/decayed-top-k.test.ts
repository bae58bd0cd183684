import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DECAYED_TOP_K_MAX_CAPACITY, DecayedTopK } from './decayed-top-k.ts';

const H = 10_000; // half-life of the tests, ms

/** Exact decayed counts: what the summary approximates (O(events) memory, tests only). Time is clamped to the latest seen, as the summary does. */
function exactCounts(events: ReadonlyArray<readonly [string, number]>, nowMs: number, halfLifeMs = H): Map<string, number> {
  const out = new Map<string, number>();
  let latest = -Infinity;
  const clamped = events.map(([key, t0]) => {
    latest = Math.max(latest, t0);
    return [key, latest] as const;
  });
  const now = Math.max(nowMs, latest);
  for (const [key, t] of clamped) out.set(key, (out.get(key) ?? 0) + Math.pow(2, -(now - t) / halfLifeMs));
  return out;
}

describe('DecayedTopK: options', () => {
  it.each([0, -1, 1.5, NaN, DECAYED_TOP_K_MAX_CAPACITY + 1])('refuses capacity %s', (capacity) => {
    expect(() => new DecayedTopK({ capacity, halfLifeMs: H })).toThrow(/capacity must be an integer/);
  });
  it.each([0, -5, NaN, Infinity])('refuses halfLifeMs %s', (halfLifeMs) => {
    expect(() => new DecayedTopK({ capacity: 4, halfLifeMs })).toThrow(/halfLifeMs must be a positive number/);
  });
  it('refuses a time that is not a finite number', () => {
    const t = new DecayedTopK({ capacity: 2, halfLifeMs: H });
    expect(() => t.observe('a', NaN)).toThrow(/finite/);
    expect(() => t.observe('a', Infinity)).toThrow(/finite/);
  });
});

describe('DecayedTopK: counting (no time passing)', () => {
  it('is empty before the first event', () => {
    const t = new DecayedTopK({ capacity: 3, halfLifeMs: H });
    expect(t.size).toBe(0);
    expect(t.top(10, 0)).toEqual([]);
    expect(t.total(0)).toBe(0);
    expect(t.minCount(0)).toBe(0);
    expect(t.rateFactor(0)).toBe(0);
  });

  it('counts exactly while a counter is free', () => {
    const t = new DecayedTopK({ capacity: 3, halfLifeMs: H });
    for (const k of ['a', 'b', 'a', 'c', 'a', 'b']) t.observe(k, 1000);
    expect(t.top(10, 1000)).toEqual([
      { key: 'a', count: 3, error: 0, flagged: 0 },
      { key: 'b', count: 2, error: 0, flagged: 0 },
      { key: 'c', count: 1, error: 0, flagged: 0 },
    ]);
    expect(t.total(1000)).toBe(6);
    expect(t.minCount(1000)).toBe(1);
    expect(t.checkInvariants()).toBeUndefined();
  });

  it('replaces the smallest counter and the newcomer inherits its count as error', () => {
    const t = new DecayedTopK({ capacity: 2, halfLifeMs: H });
    for (const k of ['a', 'a', 'a', 'b', 'b', 'c']) t.observe(k, 0);
    // c replaced b (count 2): count 3, error 2.
    expect(t.top(2, 0)).toEqual([
      { key: 'a', count: 3, error: 0, flagged: 0 },
      { key: 'c', count: 3, error: 2, flagged: 0 },
    ]);
    expect(t.total(0)).toBe(6);
    // b comes back: it takes the smallest (a and c tie at 3; either may go), inheriting 3.
    t.observe('b', 0);
    const b = t.top(2, 0).find((e) => e.key === 'b')!;
    expect(b).toEqual({ key: 'b', count: 4, error: 3, flagged: 0 });
    expect(t.checkInvariants()).toBeUndefined();
  });

  it('capacity 1 holds the last key, with everything before as error', () => {
    const t = new DecayedTopK({ capacity: 1, halfLifeMs: H });
    for (const k of ['a', 'a', 'b']) t.observe(k, 0);
    expect(t.top(5, 0)).toEqual([{ key: 'b', count: 3, error: 2, flagged: 0 }]);
  });

  it('top(n) cuts and orders ties by key', () => {
    const t = new DecayedTopK({ capacity: 5, halfLifeMs: H });
    for (const k of ['d', 'b', 'c', 'a', 'a']) t.observe(k, 0);
    expect(t.top(3, 0).map((e) => e.key)).toEqual(['a', 'b', 'c']);
    expect(t.top(0, 0)).toEqual([]);
    expect(t.top(-1, 0)).toEqual([]);
  });

  it('flagged counts only the flagged events since the key took its counter', () => {
    const t = new DecayedTopK({ capacity: 1, halfLifeMs: H });
    t.observe('a', 0, true);
    t.observe('a', 0, false);
    t.observe('a', 0, true);
    expect(t.top(1, 0)[0]).toMatchObject({ key: 'a', count: 3, flagged: 2 });
    t.observe('b', 0, false);
    expect(t.top(1, 0)[0]).toMatchObject({ key: 'b', count: 4, error: 3, flagged: 0 });
  });

  it('keeps the Space-Saving invariants against exact counts for any stream (property)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 20 }), { maxLength: 300 }), (capacity, stream) => {
        const t = new DecayedTopK({ capacity, halfLifeMs: H });
        const exact = new Map<string, number>();
        for (const k of stream) {
          t.observe(`k${k}`, 0);
          exact.set(`k${k}`, (exact.get(`k${k}`) ?? 0) + 1);
        }
        expect(t.checkInvariants()).toBeUndefined();
        expect(t.size).toBe(Math.min(capacity, exact.size));
        const all = t.top(capacity, 0);
        const min = t.minCount(0);
        // The counters sum to the stream length, so the smallest is at most D/k.
        expect(all.reduce((s, e) => s + e.count, 0)).toBe(stream.length);
        expect(min).toBeLessThanOrEqual(stream.length / capacity);
        const tracked = new Set(all.map((e) => e.key));
        for (const e of all) {
          const f = exact.get(e.key)!;
          expect(e.count - e.error).toBeLessThanOrEqual(f);
          expect(f).toBeLessThanOrEqual(e.count);
          expect(e.error).toBeLessThanOrEqual(min);
        }
        for (const [k, f] of exact) if (!tracked.has(k)) expect(f).toBeLessThanOrEqual(min);
      }),
      { seed: 22, numRuns: 300 },
    );
  });
});

describe('DecayedTopK: decay with a fake clock', () => {
  it('halves a count every half-life', () => {
    const t = new DecayedTopK({ capacity: 2, halfLifeMs: H });
    t.observe('a', 5_000);
    expect(t.top(1, 5_000)[0]!.count).toBe(1);
    expect(t.top(1, 5_000 + H)[0]!.count).toBeCloseTo(0.5, 12);
    expect(t.top(1, 5_000 + 3 * H)[0]!.count).toBeCloseTo(0.125, 12);
    expect(t.total(5_000 + 2 * H)).toBeCloseTo(0.25, 12);
  });

  it('"hot now": a key that stopped fades and the one that took over leads', () => {
    const t = new DecayedTopK({ capacity: 4, halfLifeMs: H });
    let now = 0;
    for (let i = 0; i < 600; i++, now += 100) t.observe('old', now); // 60 s of 10/s
    for (let i = 0; i < 300; i++, now += 100) t.observe('new', now); // then 30 s of 10/s
    const [first, second] = t.top(2, now);
    expect(first!.key).toBe('new');
    expect(second!.key).toBe('old');
    // Three half-lives after it stopped, the old key's share is about 1/8 of what it was.
    expect(second!.count / t.total(now)).toBeLessThan(0.15);
  });

  it('the decayed counts equal the exact decayed sums, across many landmark moves', () => {
    const t = new DecayedTopK({ capacity: 3, halfLifeMs: 100 });
    const events: Array<[string, number]> = [];
    let now = 0;
    // 200 half-lives per step: the landmark moves (counts rescaled) again and again.
    for (let i = 0; i < 50; i++) {
      for (const k of ['a', 'b', 'a']) {
        t.observe(k, now);
        events.push([k, now]);
        now += 7;
      }
      now += 20_000;
    }
    const exact = exactCounts(events, now, 100);
    for (const e of t.top(3, now)) expect(e.count).toBeCloseTo(exact.get(e.key)!, 9);
    expect(t.total(now)).toBeCloseTo([...exact.values()].reduce((s, v) => s + v, 0), 9);
    // Nothing overflowed or underflowed into NaN.
    expect(t.top(3, now).every((e) => Number.isFinite(e.count) && e.count > 0)).toBe(true);
  });

  it('a clock stepping back counts as the latest time seen', () => {
    const t = new DecayedTopK({ capacity: 2, halfLifeMs: H });
    t.observe('a', 50_000);
    t.observe('b', 10_000); // earlier than the latest: weighs like an event at 50 000
    expect(t.top(2, 50_000).map((e) => e.count)).toEqual([1, 1]);
    expect(t.top(2, 0).map((e) => e.count)).toEqual([1, 1]); // a read in the past reads at the latest
  });

  it('rate: a steady stream reads as its rate, from the first seconds and after warming up', () => {
    for (const perSecond of [2, 50]) {
      const t = new DecayedTopK({ capacity: 4, halfLifeMs: H });
      let now = 0;
      const step = 1000 / perSecond;
      const check = (untilMs: number) => {
        for (; now < untilMs; now += step) t.observe('k', now);
        const last = now - step;
        const rate = t.top(1, last)[0]!.count * t.rateFactor(last);
        expect(rate / perSecond).toBeGreaterThan(0.9);
        expect(rate / perSecond).toBeLessThan(1.12);
      };
      check(5_000); // half a half-life in
      check(120_000); // warmed up
    }
  });

  it('rate of a key with half the traffic is half, and its share one half', () => {
    const t = new DecayedTopK({ capacity: 4, halfLifeMs: H });
    let now = 0;
    for (let i = 0; i < 4000; i++, now += 25) t.observe(i % 2 === 0 ? 'hot' : `cold-${i % 3}`, now);
    const at = now - 25;
    const hot = t.top(1, at)[0]!;
    expect(hot.key).toBe('hot');
    expect(hot.count / t.total(at)).toBeCloseTo(0.5, 2);
    expect(hot.count * t.rateFactor(at)).toBeCloseTo(20, 0);
  });
});

describe('DecayedTopK: fixed memory', () => {
  it('holds capacity counters whatever the number of distinct keys (1 000 000 keys)', () => {
    const capacity = 128;
    const t = new DecayedTopK({ capacity, halfLifeMs: H });
    const before = t.memory();
    let now = 0;
    for (let i = 0; i < 1_000_000; i++) {
      t.observe(`user-${i}`, now);
      if (i % 1000 === 0) now += 1;
    }
    const after = t.memory();
    expect(before).toEqual({ tracked: 0, capacity, mapEntries: 0, keyChars: 0 });
    expect(after.tracked).toBe(capacity);
    expect(after.mapEntries).toBe(capacity);
    expect(after.capacity).toBe(capacity);
    // The longest key fed has 11 characters: the held key text is bounded by capacity × that.
    expect(after.keyChars).toBeLessThanOrEqual(capacity * 'user-999999'.length);
    expect(t.checkInvariants()).toBeUndefined();
    // And it still counts: one hot key among the million.
    for (let i = 0; i < 5000; i++) t.observe('hot', now);
    expect(t.top(1, now)[0]!.key).toBe('hot');
    expect(t.memory().tracked).toBe(capacity);
  });
});
