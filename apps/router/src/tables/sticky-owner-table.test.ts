import { describe, expect, it } from 'vitest';
import { StickyOwnerTable, stickyEntityId } from './sticky-owner-table.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
const rec = (address: string, at: number): Uint8Array => enc.encode(JSON.stringify({ address, at }));

describe('StickyOwnerTable', () => {
  it('entity ids are functionKey#bucket, buckets 0..255', () => {
    expect(stickyEntityId('default/fn', 7)).toBe('default/fn#7');
    expect(() => stickyEntityId('fn', 256)).toThrow(RangeError);
    expect(() => stickyEntityId('fn', -1)).toThrow(RangeError);
    expect(() => stickyEntityId('fn', 1.5)).toThrow(RangeError);
    expect(new StickyOwnerTable().namespace).toBe('router-sticky-owners');
  });

  it('record reports a teleport only when a local admission changes the owner', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    expect(t.record('fn', 3, 'A', 1_000)).toEqual({});
    expect(t.record('fn', 3, 'A', 2_000)).toEqual({});
    expect(t.record('fn', 3, 'B', 3_000)).toEqual({ teleportedFrom: 'A' });
    expect(t.owner('fn', 3)).toEqual({ address: 'B', atMs: 3_000 });
    // An admission older than the current record changes nothing.
    expect(t.record('fn', 3, 'C', 2_500)).toEqual({});
    expect(t.owner('fn', 3)?.address).toBe('B');
    expect(t.owner('fn', 4)).toBeUndefined();
  });

  it('a newer owner from a peer merges silently (no teleport), and the next local move counts from it', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 1, 'A', 1_000);
    t.applyRemote('fn#1', rec('B', 2_000));
    expect(t.owner('fn', 1)).toEqual({ address: 'B', atMs: 2_000 });
    t.applyRemote('fn#1', rec('Z', 1_500)); // older: ignored
    expect(t.owner('fn', 1)?.address).toBe('B');
    expect(t.record('fn', 1, 'B', 3_000)).toEqual({});
    expect(t.record('fn', 1, 'C', 4_000)).toEqual({ teleportedFrom: 'B' });
  });

  it('equal timestamps break ties by the smaller address so replicas agree', () => {
    const a = new StickyOwnerTable({ now: () => 10_000 });
    const b = new StickyOwnerTable({ now: () => 10_000 });
    a.record('fn', 0, 'X', 5_000);
    b.record('fn', 0, 'W', 5_000);
    a.applyRemote('fn#0', rec('W', 5_000));
    b.applyRemote('fn#0', rec('X', 5_000));
    expect(a.owner('fn', 0)?.address).toBe('W');
    expect(b.owner('fn', 0)?.address).toBe('W');
  });

  it('records older than staleAfterMs are stale: not owners, not pushed, DELeted on pull', () => {
    let now = 100_000;
    const t = new StickyOwnerTable({ now: () => now, staleAfterMs: 30_000 });
    t.record('fn', 9, 'A', now);
    now += 31_000;
    expect(t.owner('fn', 9)).toBeUndefined();
    expect(t.record('fn', 9, 'B', now)).toEqual({}); // a move after a long idle is no teleport
    expect(t.isStale('fn#9', rec('A', now - 31_000))).toBe(true);
    expect(t.isStale('fn#9', rec('A', now - 1_000))).toBe(false);
    now += 31_000;
    expect(t.delta().upserts.size).toBe(0);
    expect(() => t.applyRemote('fn#9', enc.encode('{"address":""}'))).toThrow(/address/);
  });

  it('delta carries changed buckets; clearDirty leaves entries re-recorded since', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 1, 'A', 1_000);
    t.record('fn', 2, 'A', 1_000);
    const d = t.delta();
    expect([...d.upserts.keys()].sort()).toEqual(['fn#1', 'fn#2']);
    expect(JSON.parse(dec.decode(d.upserts.get('fn#1')))).toEqual({ address: 'A', at: 1_000 });
    t.record('fn', 2, 'B', 2_000);
    t.clearDirty(d);
    expect(t.dirtyIds()).toEqual(['fn#2']);
  });

  it('forgetFunction tombstones every bucket of that function only', () => {
    const t = new StickyOwnerTable({ now: () => 10_000 });
    const peer = new StickyOwnerTable({ now: () => 10_000 });
    t.record('fn', 1, 'A', 1_000);
    t.record('fn', 200, 'A', 1_000);
    t.record('fn#x', 1, 'A', 1_000);
    t.record('other', 1, 'A', 1_000);
    for (const [id, b] of t.delta().upserts) peer.applyRemote(id, b);
    t.clearDirty(t.delta());
    t.forgetFunction('fn');
    expect(t.owner('fn', 1)).toBeUndefined();
    expect(t.owner('fn#x', 1)?.address).toBe('A');
    expect(t.owner('other', 1)?.address).toBe('A');
    const d = t.delta();
    expect(d.deletes.sort()).toEqual(['fn#1', 'fn#200']);
    for (const id of d.deletes) peer.deleteLocal(id, t.makeTombstone(id));
    expect(peer.owner('fn', 200)).toBeUndefined();
    expect(peer.owner('other', 1)?.address).toBe('A');
  });
});
