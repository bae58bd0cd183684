import { describe, expect, it } from 'vitest';
import { parseCacheOutcome, parseStateCalls } from './handler-source.ts';

describe('parseStateCalls', () => {
  it('reads op letters and milliseconds in order', () => {
    expect(parseStateCalls('g0.412,c0.934')).toEqual([
      { op: 'get', ms: 0.412 },
      { op: 'cas', ms: 0.934 },
    ]);
    expect(parseStateCalls('c12.000')).toEqual([{ op: 'cas', ms: 12 }]);
  });

  it('a stale cache reports its failed CAS, the read and the retry', () => {
    expect(parseStateCalls('c1.5,g0.7,c1.1').map((c) => c.op)).toEqual(['cas', 'get', 'cas']);
  });

  it('drops malformed parts instead of guessing', () => {
    expect(parseStateCalls('x1.0,g,cabc,g-1,g0.5,')).toEqual([{ op: 'get', ms: 0.5 }]);
    expect(parseStateCalls('')).toEqual([]);
    expect(parseStateCalls(undefined)).toEqual([]);
  });
});

describe('parseCacheOutcome', () => {
  it('accepts the three outcomes only', () => {
    expect(parseCacheOutcome('hit')).toBe('hit');
    expect(parseCacheOutcome('miss')).toBe('miss');
    expect(parseCacheOutcome('stale')).toBe('stale');
    expect(parseCacheOutcome('HIT')).toBeUndefined();
    expect(parseCacheOutcome(undefined)).toBeUndefined();
  });
});
