import { describe, expect, it } from 'vitest';
import { MemoryFeed } from './memory-feed.ts';
import type { ChangeRecord } from './types.ts';

const change = (seq: number, key = `k${seq}`, at = 0): ChangeRecord => ({ seq, key, op: 'set', version: seq * 10, value: String(seq), at });

function feedOf(n: number, at = (seq: number) => seq): MemoryFeed {
  const f = new MemoryFeed();
  for (let i = 1; i <= n; i++) f.append(change(i, i % 2 ? `a/${i}` : `b/${i}`, at(i)));
  return f;
}

describe('MemoryFeed', () => {
  it('appends only the next number', () => {
    const f = feedOf(2);
    expect(() => f.append(change(4))).toThrow(/out of order/);
    expect(() => f.append(change(2))).toThrow(/out of order/);
    f.append(change(3));
    expect(f.head).toBe(3);
  });

  it('pages from any position, with a limit and a prefix; next is where to resume', () => {
    const f = feedOf(6);
    for (let since = 0; since <= 6; since++) {
      const p = f.page({ since });
      expect(p.changes.map((c) => c.seq)).toEqual(Array.from({ length: 6 - since }, (_, i) => since + i + 1));
      expect(p.next).toBe(6);
    }
    expect(f.page({ since: 1, limit: 2 })).toMatchObject({ next: 3, expired: false, low: 0, head: 6 });
    expect(f.page({ since: 0, prefix: 'b/' }).changes.map((c) => c.seq)).toEqual([2, 4, 6]);
    expect(f.page({ since: 0, prefix: 'b/', limit: 2 }).next).toBe(4);
    expect(f.page({ since: 9 })).toMatchObject({ changes: [], next: 9 });
  });

  it('prunes by count and by age; a page before the window is expired', () => {
    const f = feedOf(10, (seq) => seq * 100);
    expect(f.pruneTarget({ maxAgeMs: 0, maxEvents: 0 }, 5_000)).toBe(0);
    expect(f.pruneTarget({ maxAgeMs: 0, maxEvents: 4 }, 5_000)).toBe(6);
    // Age: recorded before now - maxAge (at 100..1000, cutoff 650): up to seq 6.
    expect(f.pruneTarget({ maxAgeMs: 350, maxEvents: 0 }, 1_000)).toBe(6);
    // Whichever prunes more.
    expect(f.pruneTarget({ maxAgeMs: 350, maxEvents: 2 }, 1_000)).toBe(8);
    expect(f.pruneTo(6)).toBe(6);
    expect(f.pruneTo(5)).toBe(0);
    expect(f.page({ since: 5 })).toMatchObject({ expired: true, changes: [], low: 6 });
    expect(f.page({ since: 6 }).changes.map((c) => c.seq)).toEqual([7, 8, 9, 10]);
    expect(f.pruneTo(99)).toBe(4); // never beyond the head
    expect(f).toMatchObject({ low: 10, head: 10 });
    expect(f.page({ since: 10 })).toMatchObject({ expired: false, changes: [], next: 10 });
  });

  it('replay: duplicates are skipped and a gap restarts the window after it', () => {
    const f = feedOf(3);
    f.appendReplayed(change(2));
    expect(f.head).toBe(3);
    f.appendReplayed(change(7));
    expect(f).toMatchObject({ low: 6, head: 7 });
    expect(f.page({ since: 3 }).expired).toBe(true);
    expect(f.page({ since: 6 }).changes.map((c) => c.seq)).toEqual([7]);
  });

  it('restores a snapshot in order; a missing tail empties the window at the head', () => {
    const f = new MemoryFeed(5, 2);
    f.restore(change(3));
    expect(() => f.restore(change(5))).toThrow(/does not follow/);
    f.restore(change(4));
    f.sealRestored();
    expect(f).toMatchObject({ low: 5, head: 5 });
    const g = new MemoryFeed(4, 2);
    g.restore(change(3));
    g.restore(change(4));
    g.sealRestored();
    expect(g.page({ since: 2 }).changes.map((c) => c.seq)).toEqual([3, 4]);
    expect([...g.snapshotLines('ns', 'ks')].map((l) => JSON.parse(l).t)).toEqual(['feed', 'chg', 'chg']);
  });
});
