import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MergeTable } from './merge-table.ts';

const enc = new TextEncoder();
const rec = (n: number, at: number): Uint8Array => enc.encode(JSON.stringify({ n, at }));

/** Last-writer-wins registers with a bound on how many the table keeps. */
class Bounded extends MergeTable<{ n: number; at: number }> {
  constructor(maxRecords: number | undefined, now: () => number = () => 0) {
    super({
      namespace: 'bounded',
      now,
      toJson: (r) => ({ n: r.n, at: r.at }),
      fromJson: (j) => ({ n: Number(j.n), at: Number(j.at) }),
      prefer: (a, b) => a.at > b.at,
      stampMs: (r) => r.at,
      expired: () => false,
      maxRecords,
    });
  }
  set(id: string, n: number, at: number): boolean {
    return this.setLocal(id, { n, at });
  }
  use(id: string): boolean {
    return this.touch(id);
  }
  get(id: string): number | undefined {
    return this.getRecord(id)?.n;
  }
  ids(): string[] {
    return [...this.knownIds()];
  }
}

describe('MergeTable maxRecords (LRU bound)', () => {
  it('is unbounded by default and refuses a bound that is not a positive integer', () => {
    const t = new Bounded(undefined);
    for (let i = 0; i < 1_000; i++) t.set(`k${i}`, i, 1);
    expect(t.size).toBe(1_000);
    expect(t.capacity).toBe(Number.POSITIVE_INFINITY);
    expect(t.evictions).toBe(0);
    for (const bad of [0, -1, 1.5, Number.NaN]) expect(() => new Bounded(bad)).toThrow(RangeError);
  });

  it('forgets the least recently written record beyond the bound', () => {
    const t = new Bounded(3);
    t.set('a', 1, 1);
    t.set('b', 2, 1);
    t.set('c', 3, 1);
    t.set('d', 4, 1);
    expect(t.ids()).toEqual(['b', 'c', 'd']);
    expect(t.get('a')).toBeUndefined();
    expect(t.size).toBe(3);
    expect(t.evictions).toBe(1);
  });

  it('touch and a winning rewrite make a record the most recent; a losing write does not', () => {
    const t = new Bounded(3);
    t.set('a', 1, 5);
    t.set('b', 2, 5);
    t.set('c', 3, 5);
    expect(t.use('a')).toBe(true);
    expect(t.use('missing')).toBe(false);
    expect(t.ids()).toEqual(['b', 'c', 'a']);
    expect(t.set('b', 9, 6)).toBe(true);
    expect(t.ids()).toEqual(['c', 'a', 'b']);
    expect(t.set('c', 0, 1)).toBe(false); // older: refused, not moved
    expect(t.ids()).toEqual(['c', 'a', 'b']);
    t.set('d', 4, 5);
    expect(t.ids()).toEqual(['a', 'b', 'd']);
  });

  it('a record adopted from a peer counts as used and takes a slot; an equal or older one does not move', () => {
    const t = new Bounded(2);
    t.set('a', 1, 5);
    t.set('b', 2, 5);
    t.applyRemote('a', rec(1, 5)); // the same record: not a use
    expect(t.ids()).toEqual(['a', 'b']);
    t.applyRemote('a', rec(7, 4)); // older: ignored
    expect(t.ids()).toEqual(['a', 'b']);
    t.applyRemote('c', rec(3, 5)); // new here: adopted, evicts the oldest
    expect(t.ids()).toEqual(['b', 'c']);
    t.applyRemote('b', rec(8, 6)); // newer: adopted, most recent
    expect(t.ids()).toEqual(['c', 'b']);
    expect(t.get('b')).toBe(8);
  });

  it('an evicted record leaves no trace: not pushed even if dirty, no tombstone, no refresh', () => {
    const t = new Bounded(2);
    t.set('a', 1, 1);
    t.set('b', 2, 1);
    t.set('c', 3, 1); // a evicted while dirty
    const d = t.delta();
    expect([...d.upserts.keys()].sort()).toEqual(['b', 'c']);
    expect(d.deletes).toEqual([]);
    expect(t.dirtyIds().sort()).toEqual(['b', 'c']);
    t.clearDirty(d);
    t.set('d', 4, 1); // b evicted while clean
    expect(t.delta().deletes).toEqual([]);
    expect([...t.delta().upserts.keys()]).toEqual(['d']);
  });

  it('property: never above the bound, and holds exactly the most recently used ids (model: an ordered list)', () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('touch' as const), id: fc.integer({ min: 0, max: 12 }) }),
      fc.record({ kind: fc.constant('remote' as const), id: fc.integer({ min: 0, max: 12 }) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (max, ops) => {
        const t = new Bounded(max);
        let model: string[] = []; // least recent first
        let evictions = 0;
        let at = 0;
        const use = (id: string): void => {
          model = [...model.filter((x) => x !== id), id];
          if (model.length > max) {
            model = model.slice(model.length - max);
            evictions++;
          }
        };
        for (const o of ops) {
          const id = `k${o.id}`;
          at++;
          if (o.kind === 'set') {
            t.set(id, o.id, at);
            use(id);
          } else if (o.kind === 'remote') {
            t.applyRemote(id, rec(o.id, at)); // always newer than anything held: adopted
            use(id);
          } else if (t.use(id)) {
            use(id);
          } else {
            expect(model).not.toContain(id);
          }
          expect(t.size).toBeLessThanOrEqual(max);
        }
        expect(t.ids()).toEqual(model);
        expect(t.evictions).toBe(evictions);
      }),
    );
  });
});
