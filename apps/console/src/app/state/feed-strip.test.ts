import { describe, expect, it } from 'vitest';
import { feedStrip, formatAge, formatRetention } from './feed-strip.ts';

describe('feedStrip', () => {
  it('places each change between the oldest retained change (0) and now (1)', () => {
    const s = feedStrip(1_000, [
      { seq: 3, key: 'c', op: 'delete', at: 11_000 },
      { seq: 2, key: 'b', op: 'set', at: 6_000 },
      { seq: 1, key: 'a', op: 'set', at: 1_000 },
    ], 11_000);
    expect(s.spanMs).toBe(10_000);
    expect(s.ticks.map((t) => [t.seq, t.x, t.ageMs])).toEqual([
      [3, 1, 0],
      [2, 0.5, 5_000],
      [1, 0, 10_000],
    ]);
  });

  it('nothing retained: no span and no ticks', () => {
    expect(feedStrip(null, [], 5)).toEqual({ spanMs: null, ticks: [] });
  });

  it('a statestore clock ahead of the browser never draws past now or before the strip', () => {
    const s = feedStrip(10_000, [{ seq: 1, key: 'a', op: 'expire', at: 12_000 }], 9_000);
    expect(s.spanMs).toBe(0);
    expect(s.ticks[0]).toMatchObject({ x: 1, ageMs: 0 });
    const t = feedStrip(1_000, [{ seq: 1, key: 'a', op: 'set', at: 500 }], 2_000).ticks[0]!;
    expect(t.x).toBe(0);
  });
});

describe('formatAge', () => {
  it.each([
    [0, 'now'],
    [999, 'now'],
    [12_400, '12 s'],
    [60_000, '1 min'],
    [243_000, '4 min 3 s'],
    [3_600_000, '1 h'],
    [7_500_000, '2 h 5 min'],
    [86_400_000, '1 d'],
    [100_800_000, '1 d 4 h'],
  ])('%d ms is %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});

describe('formatRetention', () => {
  it('names the bounds that apply', () => {
    expect(formatRetention(600_000, 10_000)).toBe('10 min of changes, at most 10,000 changes');
    expect(formatRetention(0, 500)).toBe('the newest 500 changes');
    expect(formatRetention(3_600_000, 0)).toBe('1 h of changes');
    expect(formatRetention(0, 0)).toBe('every change, forever');
  });
});
