import { describe, expect, it } from 'vitest';
import { keyPicker } from './key-picker.ts';

describe('keyPicker', () => {
  it('repeats for a seed and differs between seeds', () => {
    const a = keyPicker(1000, 7);
    const b = keyPicker(1000, 7);
    const c = keyPicker(1000, 8);
    const seqA = Array.from({ length: 50 }, a);
    expect(Array.from({ length: 50 }, b)).toEqual(seqA);
    expect(Array.from({ length: 50 }, c)).not.toEqual(seqA);
  });

  it('stays in range and covers the keys about evenly', () => {
    const pick = keyPicker(10, 1);
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) {
      const k = pick();
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual(Array.from({ length: 10 }, (_, i) => `k${i}`).sort());
    for (const n of counts.values()) expect(Math.abs(n - 2000)).toBeLessThan(200);
  });

  it('works for seed 0 and refuses a key count it cannot use', () => {
    const pick = keyPicker(3, 0);
    expect(new Set(Array.from({ length: 100 }, pick)).size).toBe(3);
    expect(() => keyPicker(0, 1)).toThrow(RangeError);
  });
});
