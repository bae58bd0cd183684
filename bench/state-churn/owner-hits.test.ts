import { describe, expect, it } from 'vitest';
import { type LandingCounts, noLandings, OwnerTracker, ownerHitRatio } from './owner-hits.ts';

describe('OwnerTracker', () => {
  it('a key’s first request is neither a hit nor a move; then each request is judged against the previous one', () => {
    const t = new OwnerTracker();
    expect(t.land('a', 'w1')).toBe('first');
    expect(t.land('a', 'w1')).toBe('owner');
    expect(t.land('a', 'w2')).toBe('moved');
    // The owner is the last worker, not the first: back on w1 is a move again, then w2 → w2 hits.
    expect(t.land('a', 'w1')).toBe('moved');
    expect(t.land('a', 'w1')).toBe('owner');
  });

  it('keys are independent: another key’s worker changes nothing', () => {
    const t = new OwnerTracker();
    t.land('a', 'w1');
    expect(t.land('b', 'w2')).toBe('first');
    expect(t.land('a', 'w1')).toBe('owner');
    expect(t.land('b', 'w2')).toBe('owner');
    expect(t.keys).toBe(2);
  });

  it('counts a sequence the way the benchmark does', () => {
    const t = new OwnerTracker();
    const counts: LandingCounts = noLandings();
    const seq: Array<[string, string]> = [['k1', 'a'], ['k2', 'b'], ['k1', 'a'], ['k1', 'c'], ['k2', 'b'], ['k2', 'b'], ['k1', 'c']];
    for (const [k, w] of seq) counts[t.land(k, w)]++;
    expect(counts).toEqual({ first: 2, owner: 4, moved: 1 });
    expect(ownerHitRatio(counts)).toBeCloseTo(4 / 5, 12);
  });
});

describe('ownerHitRatio', () => {
  it('leaves first requests out of the denominator', () => {
    expect(ownerHitRatio({ first: 1000, owner: 3, moved: 1 })).toBe(0.75);
  });

  it('is 1 with no moves, 0 with no hits, NaN with nothing to judge', () => {
    expect(ownerHitRatio({ first: 0, owner: 5, moved: 0 })).toBe(1);
    expect(ownerHitRatio({ first: 0, owner: 0, moved: 5 })).toBe(0);
    expect(ownerHitRatio({ first: 7, owner: 0, moved: 0 })).toBeNaN();
  });
});
