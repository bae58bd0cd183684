import { describe, expect, it } from 'vitest';
import { keyHitRatio, windowKeyHitRatio, withKeyHitRatio } from './key-hit-ratio.ts';

describe('key hit ratio', () => {
  it('is 1 − missing / (sticky + missing), null without requests', () => {
    expect(keyHitRatio({ stickyRequests: 30, missingKeys: 10 })).toBe(0.75);
    expect(keyHitRatio({ stickyRequests: 5, missingKeys: 0 })).toBe(1);
    expect(keyHitRatio({ stickyRequests: 0, missingKeys: 4 })).toBe(0);
    expect(keyHitRatio({ stickyRequests: 0, missingKeys: 0 })).toBeNull();
  });
  it('adds the ratio to each point and weighs busy minutes more over a window', () => {
    const points = [
      { minute: 'a', stickyRequests: 90, missingKeys: 10 },
      { minute: 'b', stickyRequests: 0, missingKeys: 0 },
      { minute: 'c', stickyRequests: 0, missingKeys: 10 },
    ];
    expect(withKeyHitRatio(points).map((p) => p.keyHitRatio)).toEqual([0.9, null, 0]);
    expect(windowKeyHitRatio(points)).toBeCloseTo(90 / 110);
  });
});
