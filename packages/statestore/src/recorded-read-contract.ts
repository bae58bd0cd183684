/**
 * Recorded reads (docs/state.md "Recorded reads"): the part of the conformance suite every driver
 * passes, registered by describeConformance. A GET with `Idempotency-Key` stores what it read, so
 * a replayed invocation reads what its first attempt read. The clock is the harness's, so
 * retention runs without sleeping.
 */
import { idempotencyRecordBytes, recordedReadBytes } from '@orrery/spec';
import { expect, it } from 'vitest';
import { StateStoreError } from './errors.ts';
import { ScopedStore } from './scoped-store.ts';
import { STATE_OWNER, type IdempotencyClaim, type Scope, type StateDriver } from './types.ts';

interface Clocked {
  driver: StateDriver;
  clock: { now: number };
}

let seq = 0;
const scope = (namespace = 'rread'): Scope => ({ namespace, owner: STATE_OWNER, keyspace: `rread-${process.pid}-${++seq}` });
/** The digests statesvc sends are SHA-256 of the request; any distinct strings do for the drivers. */
const claim = (key: string, requestHash: string, retentionMs = 60_000): IdempotencyClaim => ({ key, requestHash, retentionMs });
const NO_BUDGET = {};

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  return err instanceof StateStoreError ? err.code : err === undefined ? undefined : `not a StateStoreError: ${err instanceof Error ? err.message : JSON.stringify(err)}`;
}

export function recordedReadContract(harness: () => Clocked): void {
  it('recorded read: the first stores the live entry; a repeat gets it back after the key changed and after it was deleted', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const { version } = await driver.set(s, 'a', '{"n":1}', { ttlMs: 60_000 });
    const c = claim('inv.1', 'get-a');
    const first = await driver.getRecorded(s, 'a', NO_BUDGET, c);
    expect(first).toEqual({ status: 200, entry: { value: '{"n":1}', version, expiresAt: clock.now + 60_000 }, replayed: false });
    const moved = await driver.set(s, 'a', '{"n":2}');
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, c)).toEqual({ ...first, replayed: true });
    // The key itself moved on: a plain read and a new recorded read see that.
    expect(await driver.get(s, 'a')).toMatchObject({ value: '{"n":2}', version: moved.version });
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, claim('inv.2', 'get-a'))).toEqual({ status: 200, entry: { value: '{"n":2}', version: moved.version, expiresAt: null }, replayed: false });
    await driver.delete(s, 'a');
    clock.now += 59_000;
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, c)).toEqual({ ...first, replayed: true });
    // A read writes nothing: no change was recorded for it.
    expect((await driver.changes(s, { since: 0 })).changes.map((x) => x.op)).toEqual(['set', 'set', 'delete']);
  });

  it('a keyspace deletion takes the recorded reads holding its values with it; write outcomes and missing reads stay', async () => {
    const { driver } = harness();
    const s = scope();
    const other = { ...scope(), namespace: s.namespace };
    await driver.set(s, 'a', '{"secret":1}');
    await driver.set(other, 'a', '{"kept":1}');
    await driver.getRecorded(s, 'a', NO_BUDGET, claim('inv.1', 'get-a'));
    await driver.getRecorded(s, 'none', NO_BUDGET, claim('inv.2', 'get-none'));
    const w = await driver.setIdempotent(s, 'b', '2', {}, { maxKeys: 100 }, claim('inv.3', 'put-b'));
    const kept = await driver.getRecorded(other, 'a', NO_BUDGET, claim('inv.1', 'get-a'));
    const before = await driver.idempotencyUsage(s);
    await driver.deleteKeyspace(s);
    // The value's copy is gone: the same request is a new read of a keyspace with no entries.
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, claim('inv.1', 'get-a'))).toEqual({ status: 404, entry: null, replayed: false });
    expect(await driver.getRecorded(s, 'none', NO_BUDGET, claim('inv.2', 'get-none'))).toEqual({ status: 404, entry: null, replayed: true });
    expect(await driver.setIdempotent(s, 'b', '2', {}, { maxKeys: 100 }, claim('inv.3', 'put-b'))).toEqual({ ...w, replayed: true });
    expect(await driver.get(s, 'b')).toBeNull(); // the write's retry replayed, nothing applied again
    expect((await driver.idempotencyUsage(s)).bytes).toBeLessThan(before.bytes);
    // Another keyspace's record of the same key is untouched.
    expect(await driver.getRecorded(other, 'a', NO_BUDGET, claim('inv.1', 'get-a'))).toEqual({ ...kept, replayed: true });
  });

  it('a keyspace deletion with no entries left still drops its recorded reads', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'a', 'v');
    await driver.getRecorded(s, 'a', NO_BUDGET, claim('inv.1', 'get-a'));
    await driver.delete(s, 'a');
    await driver.deleteKeyspace(s);
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, claim('inv.1', 'get-a'))).toEqual({ status: 404, entry: null, replayed: false });
  });

  it('a read of a missing key records the 404, replayed after the key was created; an expired entry reads as missing', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const c = claim('inv.missing', 'get-m');
    expect(await driver.getRecorded(s, 'm', NO_BUDGET, c)).toEqual({ status: 404, entry: null, replayed: false });
    await driver.set(s, 'm', '1');
    expect(await driver.getRecorded(s, 'm', NO_BUDGET, c)).toEqual({ status: 404, entry: null, replayed: true });
    await driver.set(s, 'short', '1', { ttlMs: 1000 });
    clock.now += 1000;
    expect(await driver.getRecorded(s, 'short', NO_BUDGET, claim('inv.expired', 'get-short'))).toEqual({ status: 404, entry: null, replayed: false });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 2, bytes: idempotencyRecordBytes('inv.missing') + idempotencyRecordBytes('inv.expired') });
  });

  it('the same key for another request is idempotency_mismatch: another read, a write key reused for a read and a read key for a write', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'a', '1');
    await driver.getRecorded(s, 'a', NO_BUDGET, claim('r', 'get-a'));
    expect(await codeOf(driver.getRecorded(s, 'b', NO_BUDGET, claim('r', 'get-b')))).toBe('idempotency_mismatch');
    expect(await codeOf(driver.setIdempotent(s, 'a', '2', {}, { maxKeys: 100 }, claim('r', 'put-a-2')))).toBe('idempotency_mismatch');
    expect(await codeOf(driver.deleteIdempotent(s, 'a', {}, claim('r', 'delete-a')))).toBe('idempotency_mismatch');
    expect((await driver.get(s, 'a'))?.value).toBe('1'); // nothing written
    const w = await driver.setIdempotent(s, 'a', '3', {}, { maxKeys: 100 }, claim('w', 'put-a-3'));
    expect(await codeOf(driver.getRecorded(s, 'a', NO_BUDGET, claim('w', 'get-a')))).toBe('idempotency_mismatch');
    const d = await driver.deleteIdempotent(s, 'gone', {}, claim('d', 'delete-gone'));
    expect(d.status).toBe(404); // a stored 404 of a delete is not a read's 404
    expect(await codeOf(driver.getRecorded(s, 'gone', NO_BUDGET, claim('d', 'get-gone')))).toBe('idempotency_mismatch');
    // The write's own retry still replays it.
    expect(await driver.setIdempotent(s, 'a', '3', {}, { maxKeys: 100 }, claim('w', 'put-a-3'))).toEqual({ ...w, replayed: true });
    // Keys are per keyspace: another keyspace's `r` is its own.
    const other = scope();
    expect(await driver.getRecorded(other, 'b', NO_BUDGET, claim('r', 'get-b'))).toMatchObject({ status: 404, replayed: false });
  });

  it('retention: the record is forgotten and swept after the claim\'s retention; a request may ask for less than the keyspace keeps, never more', async () => {
    const { driver, clock } = harness();
    const s = scope();
    await driver.set(s, 'a', '"v1"');
    const first = await driver.getRecorded(s, 'a', NO_BUDGET, claim('short', 'get-a', 1000));
    await driver.set(s, 'a', '"v2"');
    clock.now += 999;
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, claim('short', 'get-a', 1000))).toEqual({ ...first, replayed: true });
    clock.now += 1;
    // Past the retention the key names nothing: the read is new and sees the key as it is now.
    expect(await driver.getRecorded(s, 'a', NO_BUDGET, claim('short', 'get-a', 1000))).toMatchObject({ entry: { value: '"v2"' }, replayed: false });
    clock.now += 1000;
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 0, bytes: 0 });
    expect(await driver.sweepExpired()).toBeGreaterThanOrEqual(1);

    // Through the scoped store: the keyspace keeps outcomes 10 s; X-Orrery-Idempotency-Retention asks 2 s or 60 s.
    const scoped = new ScopedStore(driver, (x) => (x.keyspace === s.keyspace ? { maxKeys: 100, maxValueBytes: 1000, defaultTtlMs: 0, idempotencyRetentionMs: 10_000 } : undefined));
    const shorter = await scoped.getRecorded(s, 'a', { key: 'asked-2s', requestHash: 'get-a', retentionMs: 2000 });
    const longer = await scoped.getRecorded(s, 'a', { key: 'asked-60s', requestHash: 'get-a', retentionMs: 60_000 });
    const plain = await scoped.getRecorded(s, 'a', { key: 'asked-none', requestHash: 'get-a' });
    const put = await scoped.setIdempotent(s, 'b', '1', {}, { key: 'put-2s', requestHash: 'put-b', retentionMs: 2000 });
    await driver.set(s, 'a', '"v3"');
    clock.now += 1999;
    for (const [k, o] of [['asked-2s', shorter], ['asked-60s', longer], ['asked-none', plain]] as const) {
      expect(await scoped.getRecorded(s, 'a', { key: k, requestHash: 'get-a' }), k).toEqual({ ...o, replayed: true });
    }
    clock.now += 1;
    expect(await scoped.getRecorded(s, 'a', { key: 'asked-2s', requestHash: 'get-a' })).toMatchObject({ entry: { value: '"v3"' }, replayed: false });
    expect(await scoped.setIdempotent(s, 'b', '1', {}, { key: 'put-2s', requestHash: 'put-b' })).toMatchObject({ replayed: false });
    expect(put.replayed).toBe(false);
    clock.now += 8000; // 10 s: the keyspace's retention caps the request that asked for 60 s
    expect(await scoped.getRecorded(s, 'a', { key: 'asked-60s', requestHash: 'get-a' })).toMatchObject({ entry: { value: '"v3"' }, replayed: false });
    expect(await scoped.getRecorded(s, 'a', { key: 'asked-none', requestHash: 'get-a' })).toMatchObject({ replayed: false });
    await expect(scoped.getRecorded(scope(), 'a', { key: 'x', requestHash: 'get-a' })).rejects.toMatchObject({ code: 'forbidden' });
  });

  it('a record counts its key and the bytes of the value it copies against the namespace byte budget; one that does not fit is refused, not answered unrecorded', async () => {
    const { driver, clock } = harness();
    const ns = `rreadb${process.pid}x${++seq}`;
    const s = scope(ns);
    const value = '"ééé"'; // 8 UTF-8 bytes, 5 characters
    await driver.set(s, 'v', value);
    const record = recordedReadBytes('kkkk', 8); // 68 + 8
    expect(await driver.getRecorded(s, 'v', NO_BUDGET, claim('kkkk', 'get-v', 5000))).toMatchObject({ status: 200 });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: record });
    expect((await driver.usage(s)).keys).toBe(1); // a record is never a key

    // Budget: the value (8) + the record (76) + 10 spare.
    const budget = { namespaceByteBudget: 8 + record + 10 };
    // A write must leave the record its bytes: 18 bytes fit, 19 do not.
    await driver.setCounted(s, 'v', '"1234567890123456"', {}, { maxKeys: 100, ...budget });
    expect(await codeOf(driver.setCounted(s, 'v', '"12345678901234567"', {}, { maxKeys: 100, ...budget }))).toBe('quota_keys');
    // A second record of the 18-byte value needs 68 + 18 more: refused with the write's code and message, not stored.
    const refused = await driver.getRecorded(s, 'v', budget, claim('jjjj', 'get-v', 5000)).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(StateStoreError);
    expect(refused).toMatchObject({ code: 'quota_keys', quotaKind: 'namespace_bytes', message: expect.stringMatching(/namespace byte budget/) });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: record });
    // A missing key's record counts the key's bytes alone: 68 more fit exactly, 67 do not.
    expect(await codeOf(driver.getRecorded(s, 'nothing', { namespaceByteBudget: 18 + record + 67 }, claim('jjjj', 'get-nothing', 5000)))).toBe('quota_keys');
    expect(await driver.getRecorded(s, 'nothing', { namespaceByteBudget: 18 + record + 68 }, claim('jjjj', 'get-nothing', 5000))).toMatchObject({ status: 404, replayed: false });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 2, bytes: record + idempotencyRecordBytes('jjjj') });
    // A replay stores nothing new, so it is answered under any budget.
    expect(await driver.getRecorded(s, 'v', { namespaceByteBudget: 1 }, claim('kkkk', 'get-v', 5000))).toMatchObject({ entry: { value }, replayed: true });
    // Past their retention the records stop counting at once, swept or not: the freed bytes take a record again.
    clock.now += 5000;
    // Exactly the value and this record: the expired ones no longer count.
    const exact = { namespaceByteBudget: 18 + recordedReadBytes('jjjj', 18) };
    expect(await driver.getRecorded(s, 'v', exact, claim('jjjj', 'get-v', 5000))).toMatchObject({ status: 200, replayed: false });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: recordedReadBytes('jjjj', 18) });
  });

  it('concurrent recorded reads with one key read once, while a writer moves the key on; different keys each read', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'hot', '0');
    let n = 0;
    const writer = (async () => {
      for (let i = 1; i <= 8; i++) await driver.set(s, 'hot', String(i)).then(() => n++);
    })();
    const same = claim('burst', 'get-hot');
    const reads = await Promise.all(Array.from({ length: 16 }, () => driver.getRecorded(s, 'hot', NO_BUDGET, same)));
    await writer;
    expect(n).toBe(8);
    expect(reads.filter((o) => !o.replayed)).toHaveLength(1);
    for (const o of reads) expect({ ...o, replayed: false }).toEqual({ ...reads[0]!, replayed: false });
    expect(await driver.getRecorded(s, 'hot', NO_BUDGET, same)).toEqual({ ...reads.find((o) => !o.replayed)!, replayed: true });
    // The control: 16 keys, 16 reads of their own.
    const plain = await Promise.all(Array.from({ length: 16 }, (_, i) => driver.getRecorded(s, 'hot', NO_BUDGET, claim(`k${i}`, 'get-hot'))));
    expect(plain.every((o) => !o.replayed)).toBe(true);
    expect(await driver.idempotencyUsage(s)).toMatchObject({ records: 17 });
  });
}
