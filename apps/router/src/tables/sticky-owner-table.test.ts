import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stickyEntityId } from './key-hash-id.ts';
import { DEFAULT_STICKY_OWNER_ENTRIES, StickyOwnerTable } from './sticky-owner-table.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const rec = (address: string, at: number): Uint8Array => enc.encode(JSON.stringify({ address, at }));
/** Key `n` of a test: its hash is (0, n). */
const id = (fn: string, n: number): string => stickyEntityId(fn, 0, n);

describe('StickyOwnerTable: one record per key', () => {
  it('is bounded by default and names its records by function and key hash', () => {
    const t = new StickyOwnerTable({ now: () => 1 });
    expect(t.namespace).toBe('router-sticky-owners');
    expect(t.usage()).toEqual({ entries: 0, capacity: DEFAULT_STICKY_OWNER_ENTRIES, evictions: 0 });
    t.record('default/fn', 0xdead, 0xbeef, 'A', 1);
    expect(t.delta().upserts.has('default/fn#0000dead0000beef')).toBe(true);
    for (const bad of [0, -1, 2.5]) expect(() => new StickyOwnerTable({ maxEntries: bad })).toThrow(RangeError);
  });

  it('counts a teleport only when the same key lands on another endpoint than last time', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    expect(t.record('fn', 0, 1, 'A', 1_000)).toBeUndefined();
    expect(t.record('fn', 0, 2, 'B', 1_000)).toBeUndefined(); // another key, another owner: no teleport
    expect(t.record('fn', 0, 1, 'A', 2_000)).toBeUndefined();
    expect(t.record('fn', 0, 2, 'B', 2_000)).toBeUndefined();
    expect(t.record('fn', 0, 1, 'B', 3_000)).toBe('A');
    expect(t.owner('fn', 0, 1)).toEqual({ address: 'B', atMs: 3_000 });
    expect(t.record('fn', 0, 1, 'B', 3_001)).toBeUndefined();
    // An admission older than the current record changes nothing.
    expect(t.record('fn', 0, 1, 'C', 2_500)).toBeUndefined();
    expect(t.owner('fn', 0, 1)?.address).toBe('B');
    expect(t.owner('fn', 0, 3)).toBeUndefined();
    // The same key hash under another function is another key.
    expect(t.record('other', 0, 1, 'C', 4_000)).toBeUndefined();
  });

  it('keys that shared one of the seed’s 256 buckets no longer count each other as teleports', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    let teleports = 0;
    for (let round = 0; round < 10; round++) {
      for (let k = 0; k < 8; k++) if (t.record('fn', k, 0x42, ['A', 'B', 'C', 'D'][k % 4]!, 1_000 + round) !== undefined) teleports++;
    }
    expect(teleports).toBe(0); // all eight keys have low byte 0x42: the old table counted 70 here
  });

  it('a same-owner admission rewrites the record only every touchAfterMs (busy keys do not dirty Redis)', () => {
    const t = new StickyOwnerTable({ now: () => 0, touchAfterMs: 1_000 });
    t.record('fn', 0, 1, 'A', 0);
    t.clearDirty(t.delta());
    t.record('fn', 0, 1, 'A', 999);
    expect(t.dirtyIds()).toEqual([]);
    expect(t.owner('fn', 0, 1)?.atMs).toBe(0);
    t.record('fn', 0, 1, 'A', 1_000);
    expect(t.dirtyIds()).toEqual([id('fn', 1)]);
    expect(t.owner('fn', 0, 1)?.atMs).toBe(1_000);
  });

  it('touchAfterMs is capped at half the stale time, so a key in use never goes stale', () => {
    let now = 0;
    const t = new StickyOwnerTable({ now: () => now, staleAfterMs: 10_000, touchAfterMs: 60_000 });
    for (now = 0; now <= 100_000; now += 4_000) expect(t.record('fn', 0, 1, 'A', now)).toBeUndefined();
    expect(t.owner('fn', 0, 1)).toBeDefined(); // the loop left now at 104 000 s: last rewrite 96 000, 8 s ago
    expect(t.record('fn', 0, 1, 'B', now)).toBe('A');
  });

  it('a newer owner from a peer merges silently (no teleport), and the next local move counts from it', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 0, 1, 'A', 1_000);
    t.applyRemote(id('fn', 1), rec('B', 2_000));
    expect(t.owner('fn', 0, 1)).toEqual({ address: 'B', atMs: 2_000 });
    t.applyRemote(id('fn', 1), rec('Z', 1_500)); // older: ignored
    expect(t.owner('fn', 0, 1)?.address).toBe('B');
    expect(t.record('fn', 0, 1, 'B', 3_000)).toBeUndefined();
    expect(t.record('fn', 0, 1, 'C', 4_000)).toBe('B');
  });

  it('equal timestamps break ties by the smaller address so replicas agree', () => {
    const a = new StickyOwnerTable({ now: () => 10_000 });
    const b = new StickyOwnerTable({ now: () => 10_000 });
    a.record('fn', 0, 0, 'X', 5_000);
    b.record('fn', 0, 0, 'W', 5_000);
    a.applyRemote(id('fn', 0), rec('W', 5_000));
    b.applyRemote(id('fn', 0), rec('X', 5_000));
    expect(a.owner('fn', 0, 0)?.address).toBe('W');
    expect(b.owner('fn', 0, 0)?.address).toBe('W');
    expect(a.record('fn', 0, 0, 'X', 5_000)).toBeUndefined(); // loses the tie: not a teleport, W stays
    expect(a.owner('fn', 0, 0)?.address).toBe('W');
  });

  it('records older than staleAfterMs are stale: not owners, not pushed, DELeted on pull', () => {
    let now = 100_000;
    const t = new StickyOwnerTable({ now: () => now, staleAfterMs: 30_000 });
    t.record('fn', 0, 9, 'A', now);
    now += 31_000;
    expect(t.owner('fn', 0, 9)).toBeUndefined();
    expect(t.record('fn', 0, 9, 'B', now)).toBeUndefined(); // a move after a long idle is no teleport
    expect(t.isStale(id('fn', 9), rec('A', now - 31_000))).toBe(true);
    expect(t.isStale(id('fn', 9), rec('A', now - 1_000))).toBe(false);
    now += 31_000;
    expect(t.delta().upserts.size).toBe(0);
    expect(() => t.applyRemote(id('fn', 9), enc.encode('{"address":""}'))).toThrow(/address/);
  });

  it('delta carries changed keys; clearDirty leaves keys re-recorded since', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 0, 1, 'A', 1_000);
    t.record('fn', 0, 2, 'A', 1_000);
    const d = t.delta();
    expect([...d.upserts.keys()].sort()).toEqual([id('fn', 1), id('fn', 2)]);
    expect(JSON.parse(dec.decode(d.upserts.get(id('fn', 1))))).toEqual({ address: 'A', at: 1_000 });
    t.record('fn', 0, 2, 'B', 2_000);
    t.clearDirty(d);
    expect(t.dirtyIds()).toEqual([id('fn', 2)]);
  });

  it('LRU: beyond maxEntries the least recently admitted key is forgotten, and its next move is not counted', () => {
    const t = new StickyOwnerTable({ now: () => 10_000, maxEntries: 3 });
    t.record('fn', 0, 1, 'A', 1_000);
    t.record('fn', 0, 2, 'A', 1_000);
    t.record('fn', 0, 3, 'A', 1_000);
    t.record('fn', 0, 1, 'A', 1_001); // key 1 used again (no rewrite): now the most recent
    t.record('fn', 0, 4, 'A', 1_002); // evicts key 2
    expect(t.usage()).toEqual({ entries: 3, capacity: 3, evictions: 1 });
    expect(t.owner('fn', 0, 2)).toBeUndefined();
    expect(t.owner('fn', 0, 1)?.address).toBe('A');
    expect(t.record('fn', 0, 2, 'B', 1_003)).toBeUndefined(); // forgotten: remembered anew, not a teleport
    expect(t.record('fn', 0, 1, 'B', 1_004)).toBe('A'); // kept: a teleport
    // Records pulled from peers take slots too.
    t.applyRemote(id('fn', 7), rec('C', 1_005));
    expect(t.usage().entries).toBe(3);
    expect(t.owner('fn', 0, 7)?.address).toBe('C');
  });

  it('property: with room for every key, teleports = the times a key lands elsewhere than its previous admission', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ key: fc.integer({ min: 0, max: 20 }), ep: fc.constantFrom('A', 'B', 'C') }), { maxLength: 200 }), (admissions) => {
        const t = new StickyOwnerTable({ now: () => 0, maxEntries: 64 });
        const last = new Map<number, string>();
        let expected = 0;
        let counted = 0;
        admissions.forEach(({ key, ep }, i) => {
          if (last.has(key) && last.get(key) !== ep) expected++;
          last.set(key, ep);
          if (t.record('fn', key, ~key, ep, i) !== undefined) counted++;
        });
        return counted === expected;
      }),
    );
  });

  it('property: with a bound, the table never holds more than it and never counts a key it forgot', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.record({ key: fc.integer({ min: 0, max: 15 }), ep: fc.constantFrom('A', 'B') }), { maxLength: 200 }), (max, admissions) => {
        const t = new StickyOwnerTable({ now: () => 0, maxEntries: max });
        let lru: Array<{ key: number; ep: string }> = []; // model, least recent first
        let expected = 0;
        let counted = 0;
        admissions.forEach(({ key, ep }, i) => {
          const prev = lru.find((e) => e.key === key);
          if (prev && prev.ep !== ep) expected++;
          lru = [...lru.filter((e) => e.key !== key), { key, ep }].slice(-max);
          if (t.record('fn', 0, key, ep, i) !== undefined) counted++;
          if (t.usage().entries > max) throw new Error('over the bound');
        });
        return counted === expected;
      }),
    );
  });

  it('forgetFunction tombstones every key of that function only', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    const peer = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 0, 1, 'A', 1_000);
    t.record('fn', 7, 200, 'A', 1_000);
    t.record('fn#x', 0, 1, 'A', 1_000);
    t.record('other', 0, 1, 'A', 1_000);
    for (const [eid, b] of t.delta().upserts) peer.applyRemote(eid, b);
    t.clearDirty(t.delta());
    t.forgetFunction('fn');
    expect(t.owner('fn', 0, 1)).toBeUndefined();
    expect(t.owner('fn#x', 0, 1)?.address).toBe('A');
    expect(t.owner('other', 0, 1)?.address).toBe('A');
    const d = t.delta();
    expect(d.deletes.sort()).toEqual([id('fn', 1), stickyEntityId('fn', 7, 200)].sort());
    for (const eid of d.deletes) peer.deleteLocal(eid, t.makeTombstone(eid));
    expect(peer.owner('fn', 7, 200)).toBeUndefined();
    expect(peer.owner('other', 0, 1)?.address).toBe('A');
  });
});
