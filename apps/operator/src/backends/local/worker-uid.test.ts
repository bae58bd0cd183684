import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_UID_RANGE, parseUidRange, WorkerUidAllocator } from './worker-uid.ts';

describe('WorkerUidAllocator', () => {
  it('gives a function the same uid every time, and across restarts through the saved table', () => {
    const a = new WorkerUidAllocator();
    const first = a.forFunction('default', 'counter');
    expect(first.changed).toBe(true);
    expect(first.uid).toBeGreaterThanOrEqual(DEFAULT_UID_RANGE.first);
    expect(first.uid).toBeLessThanOrEqual(DEFAULT_UID_RANGE.last);
    expect(a.forFunction('default', 'counter')).toEqual({ uid: first.uid, changed: false });
    const b = new WorkerUidAllocator(DEFAULT_UID_RANGE, a.toJSON());
    expect(b.forFunction('default', 'counter')).toEqual({ uid: first.uid, changed: false });
    // Same result on a fresh allocator with nothing saved: the hash decides.
    expect(new WorkerUidAllocator().forFunction('default', 'counter').uid).toBe(first.uid);
  });

  it('never gives two functions, or a function and a pool worker, the same uid (a tiny range forces clashes)', () => {
    const r = { first: 5000, last: 5015 };
    const a = new WorkerUidAllocator(r);
    const uids = new Set<number>();
    for (let i = 0; i < 8; i++) uids.add(a.forFunction('ns', `fn-${i}`).uid);
    for (let i = 0; i < 8; i++) uids.add(a.acquireTransient());
    expect(uids.size).toBe(16);
    expect(() => a.acquireTransient()).toThrow(/widen --worker-uid-range/);
    const freed = [...uids].find((u) => !Object.values(a.toJSON()).includes(u))!;
    a.release(freed);
    expect(a.acquireTransient()).toBe(freed);
  });

  it('release only frees transient uids', () => {
    const a = new WorkerUidAllocator({ first: 5000, last: 5015 });
    const { uid } = a.forFunction('ns', 'f');
    a.release(uid);
    for (let i = 0; i < 15; i++) expect(a.acquireTransient()).not.toBe(uid);
  });

  it('drops saved entries outside the range or clashing, and re-allocates them', () => {
    const a = new WorkerUidAllocator({ first: 5000, last: 5100 }, { 'ns/a': 5003, 'ns/b': 5003, 'ns/c': 42, 'ns/d': 5000.5 });
    expect(a.forFunction('ns', 'a')).toEqual({ uid: 5003, changed: false });
    for (const f of ['b', 'c', 'd']) {
      const r = a.forFunction('ns', f);
      expect(r.changed).toBe(true);
      expect(r.uid).not.toBe(5003);
      expect(r.uid).toBeGreaterThanOrEqual(5000);
    }
  });

  it('property: any sequence of allocations and releases keeps every live holder distinct and in range', () => {
    const r = { first: 7000, last: 7031 };
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.record({ fn: fc.integer({ min: 0, max: 12 }) }), fc.constant('pool' as const), fc.constant('release' as const)), { maxLength: 60 }), (ops) => {
        const a = new WorkerUidAllocator(r);
        const live: number[] = [];
        const fns = new Map<number, number>();
        for (const op of ops) {
          if (op === 'pool') {
            if (live.length + fns.size >= 32) continue;
            live.push(a.acquireTransient());
          } else if (op === 'release') {
            const u = live.shift();
            if (u !== undefined) a.release(u);
          } else {
            if (!fns.has(op.fn) && live.length + fns.size >= 32) continue;
            fns.set(op.fn, a.forFunction('ns', `f${op.fn}`).uid);
          }
          const all = [...live, ...fns.values()];
          expect(new Set(all).size).toBe(all.length);
          for (const u of all) expect(u >= r.first && u <= r.last).toBe(true);
        }
      }),
      { seed: 20, numRuns: 300 },
    );
  });

  it('parses FIRST-LAST and refuses system ids, tiny or overflowing ranges', () => {
    expect(parseUidRange('200000-299999')).toEqual({ first: 200000, last: 299999 });
    for (const bad of ['0-100000', '999-5000', '5000-5010', '1-2-3', 'x', '100000-2147483647']) expect(() => parseUidRange(bad), bad).toThrow(/worker-uid-range/);
  });
});
