import { describe, expect, it } from 'vitest';
import { SelectionCache } from './selection-cache.ts';

describe('SelectionCache', () => {
  it('hands back the kept answer only at the signature it was computed at', () => {
    const cache = new SelectionCache<number>();
    const kept = cache.set('q', 's1', [1, 2, 3]);
    expect(Object.isFrozen(kept)).toBe(true);
    expect(cache.get('q', 's1')).toBe(kept);
    expect(cache.get('other', 's1')).toBeUndefined();
    // A stale signature drops the entry: its references are released at once.
    expect(cache.get('q', 's2')).toBeUndefined();
    expect(cache.size).toBe(0);
    expect(cache.instancesHeld).toBe(0);
    expect(cache.get('q', 's1')).toBeUndefined();
  });

  it('replaces the answer kept for a key', () => {
    const cache = new SelectionCache<number>();
    cache.set('q', 's1', [1, 2, 3]);
    const next = cache.set('q', 's2', [4]);
    expect(cache.get('q', 's2')).toBe(next);
    expect(cache.size).toBe(1);
    expect(cache.instancesHeld).toBe(1);
  });

  it('drops the least recently used answer past its entry bound', () => {
    const cache = new SelectionCache<number>(2, 1000);
    const a = cache.set('a', 's', [1]);
    cache.set('b', 's', [2]);
    expect(cache.get('a', 's')).toBe(a); // a is now the most recently used
    cache.set('c', 's', [3]);
    expect(cache.get('b', 's')).toBeUndefined();
    expect(cache.get('a', 's')).toBe(a);
    expect(cache.get('c', 's')).toEqual([3]);
    expect(cache.size).toBe(2);
  });

  it('keeps at most its instance budget, and no answer above a tenth of it', () => {
    const cache = new SelectionCache<number>(100, 100);
    const big = Array.from({ length: 11 }, (_, i) => i);
    const answer = cache.set('big', 's', big);
    expect(answer).toBe(big);
    expect(Object.isFrozen(answer)).toBe(false);
    expect(cache.get('big', 's')).toBeUndefined();
    for (let i = 0; i < 12; i++) cache.set(`q${i}`, 's', Array.from({ length: 10 }, () => i));
    expect(cache.instancesHeld).toBeLessThanOrEqual(100);
    expect(cache.size).toBe(10);
    expect(cache.get('q0', 's')).toBeUndefined();
    expect(cache.get('q1', 's')).toBeUndefined();
    expect(cache.get('q11', 's')).toHaveLength(10);
  });
});
