import { describe, expect, it } from 'vitest';
import { EndpointQuarantineTable } from './endpoint-quarantine-table.ts';

const dec = new TextDecoder();
const enc = new TextEncoder();
const json = (b: Uint8Array | undefined): unknown => (b ? JSON.parse(dec.decode(b)) : undefined);

function clock(start = 1_000_000): { now: () => number; set: (t: number) => void; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, set: (v) => (t = v), advance: (ms) => (t += ms) };
}

describe('EndpointQuarantineTable', () => {
  it('uses the router-quarantine namespace by default and the address as entity id', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    expect(t.namespace).toBe('router-quarantine');
    expect(new EndpointQuarantineTable({ namespace: 'x' }).namespace).toBe('x');
    t.quarantine('10.0.0.1:8080', c.now() + 5_000);
    const d = t.delta();
    expect([...d.upserts.keys()]).toEqual(['10.0.0.1:8080']);
    expect(json(d.upserts.get('10.0.0.1:8080'))).toEqual({ until: c.now() + 5_000, at: c.now() });
  });

  it('merge keeps the later time, locally and from peers', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('a', c.now() + 10_000);
    t.quarantine('a', c.now() + 5_000);
    expect(t.entries()).toEqual([{ address: 'a', untilMs: c.now() + 10_000 }]);
    t.applyRemote('a', enc.encode(JSON.stringify({ until: c.now() + 3_000, at: c.now() })));
    expect(t.entries()[0]?.untilMs).toBe(c.now() + 10_000);
    t.applyRemote('a', enc.encode(JSON.stringify({ until: c.now() + 20_000, at: c.now() })));
    expect(t.entries()[0]?.untilMs).toBe(c.now() + 20_000);
    t.applyRemote('b', enc.encode(JSON.stringify({ until: c.now() + 1_000, at: c.now() })));
    expect(t.isQuarantined('b')).toBe(true);
    expect(() => t.applyRemote('c', enc.encode('{"until":"soon"}'))).toThrow(/until/);
  });

  it('isQuarantined follows the clock; stale once the time passed', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('a', c.now() + 1_000);
    expect(t.isQuarantined('a')).toBe(true);
    expect(t.isQuarantined('a', c.now() + 1_000)).toBe(false);
    expect(t.isQuarantined('unknown')).toBe(false);
    const past = enc.encode(JSON.stringify({ until: c.now() - 1, at: c.now() - 10 }));
    const future = enc.encode(JSON.stringify({ until: c.now() + 1, at: c.now() }));
    expect(t.isStale('x', past)).toBe(true);
    expect(t.isStale('x', future)).toBe(false);
    expect(t.isStale('x', t.makeTombstone('x'))).toBe(false);
    expect(t.isStale('x', enc.encode('not json'))).toBe(false);
    c.advance(2_000);
    expect(t.entries()).toEqual([]);
    expect(t.delta().upserts.size).toBe(0); // expired entries are never pushed
  });

  it('delta/clearDirty: delta never clears; clearDirty clears only what did not change since', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('a', c.now() + 60_000);
    t.quarantine('b', c.now() + 60_000);
    const d1 = t.delta();
    expect(t.delta().upserts.size).toBe(2); // still dirty
    t.quarantine('b', c.now() + 90_000); // changed after d1 was taken
    t.clearDirty(d1);
    expect(t.dirtyIds()).toEqual(['b']);
    const d2 = t.delta();
    expect([...d2.upserts.keys()]).toEqual(['b']);
    t.clearDirty(d2);
    expect(t.delta().upserts.size).toBe(0);
  });

  it('lift deletes locally and travels as a tombstone; peers apply it', () => {
    const c = clock();
    const a = new EndpointQuarantineTable({ now: c.now });
    const b = new EndpointQuarantineTable({ now: c.now });
    a.quarantine('x', c.now() + 60_000);
    const push = a.delta();
    b.applyRemote('x', push.upserts.get('x')!);
    a.clearDirty(push);
    expect(b.isQuarantined('x')).toBe(true);

    c.advance(10);
    a.lift('x');
    expect(a.isQuarantined('x')).toBe(false);
    const d = a.delta();
    expect(d.deletes).toEqual(['x']);
    const tomb = a.makeTombstone('x');
    expect(a.isTombstone(tomb)).toBe(true);
    expect(a.isTombstone(push.upserts.get('x')!)).toBe(false);
    b.deleteLocal('x', tomb);
    expect(b.isQuarantined('x')).toBe(false);
    // A late copy of the old record does not resurrect it.
    b.applyRemote('x', push.upserts.get('x')!);
    expect(b.isQuarantined('x')).toBe(false);
  });

  it('a quarantine set after a peer lift survives that tombstone and is re-pushed', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    const peer = new EndpointQuarantineTable({ now: c.now });
    peer.lift('x');
    const tomb = peer.makeTombstone('x');
    c.advance(100);
    t.quarantine('x', c.now() + 5_000);
    t.clearDirty(t.delta());
    t.deleteLocal('x', tomb);
    expect(t.isQuarantined('x')).toBe(true);
    expect([...t.delta().upserts.keys()]).toEqual(['x']);
  });

  it('a remote record newer than the local one makes the local change clean (nothing to push)', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('x', c.now() + 1_000);
    t.applyRemote('x', enc.encode(JSON.stringify({ until: c.now() + 9_000, at: c.now() })));
    expect(t.dirtyIds()).toEqual([]);
    t.quarantine('y', c.now() + 9_000);
    t.applyRemote('y', enc.encode(JSON.stringify({ until: c.now() + 1_000, at: c.now() })));
    expect(t.dirtyIds()).toEqual(['y']); // ours is later: push it over the older remote one
  });

  it('re-pushes live entries before the record TTL could expire them', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('long', c.now() + 10 * 60_000);
    t.clearDirty(t.delta());
    expect(t.delta().upserts.size).toBe(0);
    c.advance(60_000);
    const d = t.delta();
    expect([...d.upserts.keys()]).toEqual(['long']);
    t.clearDirty(d);
    expect(t.delta().upserts.size).toBe(0);
  });

  it('snapshot holds every live entry; encoded() gives the bytes for write-through', () => {
    const c = clock();
    const t = new EndpointQuarantineTable({ now: c.now });
    t.quarantine('a', c.now() + 1_000);
    t.quarantine('b', c.now() + 2_000);
    expect([...t.snapshot().keys()].sort()).toEqual(['a', 'b']);
    expect(json(t.encoded('a'))).toEqual({ until: c.now() + 1_000, at: c.now() });
    expect(t.encoded('zzz')).toBeUndefined();
    expect(() => t.quarantine('', 1)).toThrow(/address/);
  });
});
