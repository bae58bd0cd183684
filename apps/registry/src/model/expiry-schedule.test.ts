import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExpirySchedule } from './expiry-schedule.ts';

describe('ExpirySchedule', () => {
  it('returns due keys earliest first and keeps the rest', () => {
    const s = new ExpirySchedule();
    s.schedule('b', 20);
    s.schedule('a', 10);
    s.schedule('c', 30);
    expect(s.nextAt()).toBe(10);
    expect(s.due(9)).toEqual([]);
    expect(s.due(20)).toEqual(['a', 'b']);
    expect(s.size).toBe(1);
    expect(s.nextAt()).toBe(30);
    expect(s.due(1000)).toEqual(['c']);
    expect(s.nextAt()).toBeUndefined();
  });

  it('keeps only the earliest entry per key: a later time is ignored, an earlier one replaces it', () => {
    const s = new ExpirySchedule();
    s.schedule('a', 10);
    s.schedule('a', 50); // a renewal: the key is looked at at 10 and scheduled again then
    expect(s.due(10)).toEqual(['a']);
    expect(s.due(100)).toEqual([]);
    s.schedule('b', 50);
    s.schedule('b', 5); // a shorter TTL
    expect(s.nextAt()).toBe(5);
    expect(s.due(5)).toEqual(['b']);
    expect(s.due(100)).toEqual([]); // the stale entry at 50 is not a second firing
  });

  it('cancel drops a key; scheduling it again afterwards works', () => {
    const s = new ExpirySchedule();
    s.schedule('a', 10);
    s.cancel('a');
    expect(s.nextAt()).toBeUndefined();
    expect(s.due(100)).toEqual([]);
    s.schedule('a', 10);
    s.schedule('a', 10);
    expect(s.due(10)).toEqual(['a']);
    expect(s.due(10)).toEqual([]);
  });

  it('agrees with a plain map of earliest times (property)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('schedule' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e'), at: fc.integer({ min: 0, max: 100 }) }),
      fc.record({ kind: fc.constant('cancel' as const), key: fc.constantFrom('a', 'b', 'c', 'd', 'e') }),
      fc.record({ kind: fc.constant('due' as const), now: fc.integer({ min: 0, max: 100 }) }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 80 }), (ops) => {
        const s = new ExpirySchedule();
        const model = new Map<string, number>();
        for (const o of ops) {
          if (o.kind === 'schedule') {
            s.schedule(o.key, o.at);
            const cur = model.get(o.key);
            if (cur === undefined || o.at < cur) model.set(o.key, o.at);
          } else if (o.kind === 'cancel') {
            s.cancel(o.key);
            model.delete(o.key);
          } else {
            const expected = [...model].filter(([, at]) => at <= o.now).sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1));
            const got = s.due(o.now);
            if (got.length !== expected.length) return false;
            // Same keys; ordered by time (ties in any order).
            if ([...got].sort().join() !== expected.map(([k]) => k).sort().join()) return false;
            const times = got.map((k) => model.get(k)!);
            if (times.some((t, i) => i > 0 && t < times[i - 1]!)) return false;
            for (const k of got) model.delete(k);
          }
          const next = model.size ? Math.min(...model.values()) : undefined;
          if (s.nextAt() !== next || s.size !== model.size) return false;
        }
        return true;
      }),
    );
  });
});
