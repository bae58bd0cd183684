/**
 * Write fences (docs/state.md "Fencing"): the part of the conformance suite every driver passes,
 * registered by describeConformance. A harness with `peer` (Postgres) also runs the checks
 * across two driver instances on one database, as two statesvc replicas would.
 */
import { expect, it } from 'vitest';
import { StateStoreError } from './errors.ts';
import { STATE_OWNER, type Scope, type StateDriver } from './types.ts';

interface Fenced {
  driver: StateDriver;
  /** A second driver on the same storage (another statesvc replica); absent where there is none. */
  peer?: StateDriver;
}

let seq = 0;
const scope = (namespace = 'fence'): Scope => ({ namespace, owner: STATE_OWNER, keyspace: `fence-${process.pid}-${++seq}` });
const claim = (key: string, requestHash: string) => ({ key, requestHash, retentionMs: 60_000 });
const NO_LIMIT = { maxKeys: 1000 };

/** The error a promise rejects with, as `code` (+ `fence` for `fenced`), or 'ok'. */
async function outcome(p: Promise<unknown>): Promise<string> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (err === undefined) return 'ok';
  if (!(err instanceof StateStoreError)) return `not a StateStoreError: ${err instanceof Error ? err.message : JSON.stringify(err)}`;
  return err.code === 'fenced' ? `fenced ${err.fence}` : err.code;
}

export function fencingContract(harness: () => Fenced): void {
  it('fencing: each claim is higher than every fence issued before, for that key and any other', async () => {
    const { driver } = harness();
    const s = scope();
    const a1 = await driver.claimFence(s, 'a');
    const b1 = await driver.claimFence(s, 'b');
    const a2 = await driver.claimFence(s, 'a');
    expect(a1).toBeGreaterThan(0);
    expect(b1).toBeGreaterThan(a1);
    expect(a2).toBeGreaterThan(b1);
    // Fences come from the version sequence: a write after a claim gets a higher version, and the next claim is higher still.
    const { version } = await driver.set(s, 'a', '1', { fence: a2 });
    expect(version).toBeGreaterThan(a2);
    expect(await driver.claimFence(s, 'a')).toBeGreaterThan(version);
  });

  it('fencing: writes with the current fence land; without a fence nothing is checked', async () => {
    const { driver } = harness();
    const s = scope();
    const f = await driver.claimFence(s, 'k');
    const v1 = (await driver.set(s, 'k', '1', { fence: f })).version;
    const v2 = (await driver.set(s, 'k', '2', { fence: f, ifVersion: v1 })).version;
    expect(await driver.get(s, 'k')).toMatchObject({ value: '2', version: v2 });
    expect(await driver.delete(s, 'k', { fence: f, ifVersion: v2 })).toBe(true);
    expect((await driver.setCounted(s, 'k', '3', { fence: f, ifVersion: 0 }, { maxKeys: 10, namespaceByteBudget: 1_000_000 })).version).toBeGreaterThan(v2);
    // Backward compatible: a write without a fence is not checked, even on a fenced key.
    await driver.set(s, 'k', '4');
    expect(await driver.delete(s, 'k')).toBe(true);
    expect(await driver.get(s, 'k')).toBeNull();
  });

  it('fencing: after a newer claim, a stale write is refused (fenced, naming the current fence) and changes nothing', async () => {
    const { driver } = harness();
    const s = scope();
    const old = await driver.claimFence(s, 'k');
    const { version } = await driver.set(s, 'k', '"old owner"', { fence: old });
    const head = (await driver.changeWindow(s)).head;
    const current = await driver.claimFence(s, 'k');
    expect(await outcome(driver.set(s, 'k', '"late"', { fence: old }))).toBe(`fenced ${current}`);
    expect(await outcome(driver.set(s, 'k', '"late"', { fence: old, ifVersion: version }))).toBe(`fenced ${current}`);
    expect(await outcome(driver.setCounted(s, 'k', '"late"', { fence: old }, { maxKeys: 10, namespaceByteBudget: 1_000_000 }))).toBe(`fenced ${current}`);
    expect(await outcome(driver.delete(s, 'k', { fence: old }))).toBe(`fenced ${current}`);
    expect(await outcome(driver.setIdempotent(s, 'k', '"late"', {}, NO_LIMIT, claim('late-1', 'h')).then(() => undefined))).toBe('ok'); // no fence: not checked
    await driver.set(s, 'k', '"old owner"', { fence: current }); // put it back with the current fence
    const back = await driver.get(s, 'k');
    expect(await outcome(driver.setIdempotent(s, 'k', '"late"', { fence: old }, NO_LIMIT, claim('late-2', 'h')))).toBe(`fenced ${current}`);
    expect(await outcome(driver.deleteIdempotent(s, 'k', { fence: old }, claim('late-3', 'h')))).toBe(`fenced ${current}`);
    expect(await driver.get(s, 'k')).toEqual(back);
    // Exactly the writes that landed are in the change feed: three sets, nothing from the refused ones.
    const page = await driver.changes(s, { since: head });
    expect(page.changes.map((c) => c.op)).toEqual(['set', 'set']);
    expect(page.head).toBe(head + 2);
    // The new owner writes.
    expect((await driver.set(s, 'k', '"new owner"', { fence: current })).version).toBeGreaterThan(back!.version);
  });

  it('fencing: a fence never issued for the key is refused (none claimed: fence 0; higher than the current one)', async () => {
    const { driver } = harness();
    const s = scope();
    expect(await outcome(driver.set(s, 'k', '1', { fence: 1 }))).toBe('fenced 0');
    expect(await outcome(driver.delete(s, 'k', { fence: 1 }))).toBe('fenced 0');
    const f = await driver.claimFence(s, 'k');
    expect(await outcome(driver.set(s, 'k', '1', { fence: f + 1 }))).toBe(`fenced ${f}`);
    // Another key's fence is not this key's.
    const other = await driver.claimFence(s, 'other');
    expect(await outcome(driver.set(s, 'k', '1', { fence: other }))).toBe(`fenced ${f}`);
    expect(await driver.get(s, 'k')).toBeNull();
    // Nor another keyspace's, for the same key name.
    const t = scope();
    expect(await outcome(driver.set(t, 'k', '1', { fence: f }))).toBe('fenced 0');
  });

  it('fencing: fences outlive the key (a stale delete or re-create stays fenced); deleteKeyspace removes them', async () => {
    const { driver } = harness();
    const s = scope();
    const old = await driver.claimFence(s, 'k');
    await driver.set(s, 'k', '1', { fence: old });
    const current = await driver.claimFence(s, 'k');
    expect(await driver.delete(s, 'k', { fence: current })).toBe(true);
    expect(await outcome(driver.set(s, 'k', '2', { fence: old, ifVersion: 0 }))).toBe(`fenced ${current}`);
    expect(await driver.get(s, 'k')).toBeNull();
    await driver.set(s, 'k', '3', { fence: current });
    await driver.deleteKeyspace(s);
    // The keyspace's fences are gone: no fence is current; a new claim is higher than every old one.
    expect(await outcome(driver.set(s, 'k', '4', { fence: current }))).toBe('fenced 0');
    const again = await driver.claimFence(s, 'k');
    expect(again).toBeGreaterThan(current);
    expect(await outcome(driver.set(s, 'k', '4', { fence: current }))).toBe(`fenced ${again}`);
    await driver.set(s, 'k', '5', { fence: again });
    expect((await driver.get(s, 'k'))?.value).toBe('5');
    // A keyspace holding fences but no rows is also cleared.
    const t = scope();
    const tf = await driver.claimFence(t, 'x');
    await driver.deleteKeyspace(t);
    expect(await outcome(driver.set(t, 'x', '1', { fence: tf }))).toBe('fenced 0');
  });

  it('fencing: an idempotent retry of a write that landed is replayed whatever its fence; a fenced refusal is not stored', async () => {
    const { driver } = harness();
    const s = scope();
    const f1 = await driver.claimFence(s, 'k');
    const first = await driver.setIdempotent(s, 'k', '1', { fence: f1 }, NO_LIMIT, claim('w1', 'h1'));
    expect(first).toMatchObject({ status: 200, result: 'ok', replayed: false });
    const f2 = await driver.claimFence(s, 'k');
    // The answer of w1 was lost and the key moved meanwhile: the retry answers what w1 did and writes nothing.
    expect(await driver.setIdempotent(s, 'k', '1', { fence: f1 }, NO_LIMIT, claim('w1', 'h1'))).toEqual({ ...first, replayed: true });
    // w2 is refused for its fence; nothing is stored under its key, so a retry with the current fence writes.
    expect(await outcome(driver.setIdempotent(s, 'k', '2', { fence: f1 }, NO_LIMIT, claim('w2', 'h2')))).toBe(`fenced ${f2}`);
    expect((await driver.get(s, 'k'))?.value).toBe('1');
    const w2 = await driver.setIdempotent(s, 'k', '2', { fence: f2 }, NO_LIMIT, claim('w2', 'h2'));
    expect(w2).toMatchObject({ status: 200, result: 'ok', replayed: false });
    expect(await driver.deleteIdempotent(s, 'k', { fence: f2 }, claim('d1', 'hd'))).toMatchObject({ status: 200, result: 'deleted', replayed: false });
    expect(await outcome(driver.deleteIdempotent(s, 'k', { fence: f1 }, claim('d2', 'hd2')))).toBe(`fenced ${f2}`);
    expect(await driver.idempotencyUsage(s)).toMatchObject({ records: 3 });
  });

  it('fencing: concurrent claims get distinct fences, and only the last one writes', async () => {
    const { driver, peer } = harness();
    const s = scope();
    const drivers = peer ? [driver, peer] : [driver];
    const fences = await Promise.all(Array.from({ length: 16 }, (_, i) => drivers[i % drivers.length]!.claimFence(s, 'hot')));
    expect(new Set(fences).size).toBe(16);
    const last = Math.max(...fences);
    const results = await Promise.all(fences.map((f, i) => outcome(drivers[i % drivers.length]!.set(s, 'hot', String(f), { fence: f }))));
    expect(results.filter((r) => r === 'ok')).toHaveLength(1);
    expect(results.filter((r) => r === `fenced ${last}`)).toHaveLength(15);
    expect((await driver.get(s, 'hot'))?.value).toBe(String(last));
  });

  it('fencing: a write racing a claim either committed before the claim returned or is refused', async () => {
    const { driver, peer } = harness();
    const other = peer ?? driver;
    const s = scope();
    for (let round = 0; round < 5; round++) {
      const old = await driver.claimFence(s, 'k');
      const writes = Array.from({ length: 12 }, (_, i) => driver.set(s, 'k', String(i), { fence: old }).then((r) => r.version, (e: unknown) => e));
      // The claim through the other replica, while the old owner's writes are in flight.
      const newer = await other.claimFence(s, 'k');
      const readAfter = await other.get(s, 'k');
      const settled = await Promise.all(writes);
      const landed = settled.filter((v): v is number => typeof v === 'number');
      for (const e of settled.filter((v) => typeof v !== 'number')) expect(e).toMatchObject({ code: 'fenced', fence: newer });
      // Every write that landed is visible to a read made after the claim returned: none landed later.
      if (landed.length > 0) expect(readAfter?.version).toBe(Math.max(...landed));
      expect((await driver.get(s, 'k'))?.version).toBe(readAfter?.version);
    }
  });

  it('fencing: fenceSummary counts the claimed keys and lists the newest claims first; deleteKeyspace empties it', async () => {
    const { driver } = harness();
    const s = scope();
    expect(await driver.fenceSummary(s, 5)).toEqual({ keys: 0, newest: [] });
    const a = await driver.claimFence(s, 'a');
    const b = await driver.claimFence(s, 'b');
    const c = await driver.claimFence(s, 'c');
    const a2 = await driver.claimFence(s, 'a');
    // Another keyspace's claims are not counted.
    await driver.claimFence(scope(), 'a');
    expect(a).toBeLessThan(b);
    expect(await driver.fenceSummary(s, 2)).toEqual({ keys: 3, newest: [{ key: 'a', fence: a2 }, { key: 'c', fence: c }] });
    expect((await driver.fenceSummary(s, 10)).newest.map((f) => f.key)).toEqual(['a', 'c', 'b']);
    await driver.set(s, 'a', '1');
    await driver.deleteKeyspace(s);
    expect(await driver.fenceSummary(s, 5)).toEqual({ keys: 0, newest: [] });
  });

  it('fencing: a claim through one replica fences the writes of another (one database)', async (ctx) => {
    const { driver, peer } = harness();
    if (!peer) return ctx.skip();
    const s = scope();
    const a = await driver.claimFence(s, 'k');
    await driver.set(s, 'k', '"a"', { fence: a });
    const b = await peer.claimFence(s, 'k');
    expect(b).toBeGreaterThan(a);
    expect(await outcome(driver.set(s, 'k', '"a late"', { fence: a }))).toBe(`fenced ${b}`);
    expect(await outcome(driver.delete(s, 'k', { fence: a }))).toBe(`fenced ${b}`);
    await peer.set(s, 'k', '"b"', { fence: b });
    expect((await driver.get(s, 'k'))?.value).toBe('"b"');
  });
}
