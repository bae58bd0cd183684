/**
 * Idempotent writes (docs/state.md "Idempotent writes"): the part of the conformance suite every
 * driver passes, registered by describeConformance. The clock is the harness's, so retention
 * runs without sleeping.
 */
import { idempotencyRecordBytes } from '@orrery/spec';
import { expect, it } from 'vitest';
import { StateStoreError } from './errors.ts';
import { STATE_OWNER, type IdempotencyClaim, type Scope, type StateDriver } from './types.ts';

interface Clocked {
  driver: StateDriver;
  clock: { now: number };
}

let seq = 0;
const scope = (namespace = 'idem'): Scope => ({ namespace, owner: STATE_OWNER, keyspace: `idem-${process.pid}-${++seq}` });
const claim = (key: string, requestHash: string, retentionMs = 60_000): IdempotencyClaim => ({ key, requestHash, retentionMs });
const NO_LIMIT = { maxKeys: 1000 };

async function codeOf(p: Promise<unknown>): Promise<string | undefined> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  return err instanceof StateStoreError ? err.code : err === undefined ? undefined : `not a StateStoreError: ${err instanceof Error ? err.message : JSON.stringify(err)}`;
}

export function idempotentWriteContract(harness: () => Clocked): void {
  it('idempotent set: applied once; a retry gets the stored outcome and writes nothing', async () => {
    const { driver } = harness();
    const s = scope();
    const c = claim('req-1', 'hash-a');
    const first = await driver.setIdempotent(s, 'a', '{"n":1}', {}, NO_LIMIT, c);
    expect(first).toMatchObject({ status: 200, result: 'ok', replayed: false });
    expect(first.version).toBeGreaterThan(0);
    const again = await driver.setIdempotent(s, 'a', '{"n":1}', {}, NO_LIMIT, c);
    expect(again).toEqual({ ...first, replayed: true });
    expect((await driver.get(s, 'a'))?.version).toBe(first.version);
    // Another writer moves the key on; the retry still answers what the first request did, and leaves the key alone.
    const other = await driver.set(s, 'a', '{"n":2}');
    expect(await driver.setIdempotent(s, 'a', '{"n":1}', {}, NO_LIMIT, c)).toEqual({ ...first, replayed: true });
    expect(await driver.get(s, 'a')).toMatchObject({ value: '{"n":2}', version: other.version });
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: idempotencyRecordBytes('req-1') });
  });

  it('the same key with another request is idempotency_mismatch and writes nothing', async () => {
    const { driver } = harness();
    const s = scope();
    const { version } = await driver.setIdempotent(s, 'a', '1', {}, NO_LIMIT, claim('k', 'h1'));
    expect(await codeOf(driver.setIdempotent(s, 'a', '2', {}, NO_LIMIT, claim('k', 'h2')))).toBe('idempotency_mismatch');
    expect(await codeOf(driver.deleteIdempotent(s, 'a', {}, claim('k', 'h3')))).toBe('idempotency_mismatch');
    expect(await driver.get(s, 'a')).toMatchObject({ value: '1', version });
  });

  it('keys are scoped per keyspace and namespace', async () => {
    const { driver } = harness();
    const a = scope();
    const b = scope();
    const c = { ...a, namespace: 'idem-other' };
    const va = await driver.setIdempotent(a, 'k', '1', {}, NO_LIMIT, claim('shared', 'h-a'));
    const vb = await driver.setIdempotent(b, 'k', '2', {}, NO_LIMIT, claim('shared', 'h-b'));
    const vc = await driver.setIdempotent(c, 'k', '3', {}, NO_LIMIT, claim('shared', 'h-c'));
    for (const o of [va, vb, vc]) expect(o).toMatchObject({ result: 'ok', replayed: false });
    expect(new Set([va.version, vb.version, vc.version]).size).toBe(3);
    expect((await driver.get(b, 'k'))?.value).toBe('2');
  });

  it('a refused precondition is stored and replayed; a quota refusal is not stored', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'c', '1');
    const refused = await driver.setIdempotent(s, 'c', '2', { ifVersion: 0 }, NO_LIMIT, claim('create-c', 'h'));
    expect(refused).toEqual({ status: 412, result: 'version_conflict', version: null, replayed: false });
    await driver.delete(s, 'c');
    // Create-only would succeed now, but the request was already answered: the retry says so.
    expect(await driver.setIdempotent(s, 'c', '2', { ifVersion: 0 }, NO_LIMIT, claim('create-c', 'h'))).toEqual({ ...refused, replayed: true });
    expect(await driver.get(s, 'c')).toBeNull();

    const full = { maxKeys: 1 };
    await driver.setCounted(s, 'x', '1', {}, full);
    expect(await codeOf(driver.setIdempotent(s, 'y', '1', {}, full, claim('make-y', 'h')))).toBe('quota_keys');
    expect((await driver.idempotencyUsage(s)).records).toBe(1); // only create-c
    await driver.delete(s, 'x');
    expect(await driver.setIdempotent(s, 'y', '1', {}, full, claim('make-y', 'h'))).toMatchObject({ status: 200, result: 'ok', replayed: false });
  });

  it('idempotent delete: deletes once; a retry after the key came back leaves it', async () => {
    const { driver } = harness();
    const s = scope();
    await driver.set(s, 'd', '1');
    const first = await driver.deleteIdempotent(s, 'd', {}, claim('del-d', 'h'));
    expect(first).toEqual({ status: 200, result: 'deleted', version: null, replayed: false });
    const back = await driver.set(s, 'd', '2');
    expect(await driver.deleteIdempotent(s, 'd', {}, claim('del-d', 'h'))).toEqual({ ...first, replayed: true });
    expect((await driver.get(s, 'd'))?.version).toBe(back.version);
    expect(await driver.deleteIdempotent(s, 'never', {}, claim('del-never', 'h'))).toEqual({ status: 404, result: 'missing', version: null, replayed: false });
    expect(await driver.deleteIdempotent(s, 'never', { ifVersion: 3 }, claim('del-never-3', 'h'))).toEqual({ status: 412, result: 'missing', version: null, replayed: false });
    expect(await driver.deleteIdempotent(s, 'd', { ifVersion: back.version + 1 }, claim('del-d-wrong', 'h'))).toEqual({ status: 412, result: 'version_conflict', version: null, replayed: false });
    expect(await driver.deleteIdempotent(s, 'd', { ifVersion: back.version + 1 }, claim('del-d-wrong', 'h'))).toMatchObject({ status: 412, replayed: true });
    expect((await driver.get(s, 'd'))?.version).toBe(back.version);
  });

  it('retention: the key is free again once it passed, and the sweeper removes the outcome', async () => {
    const { driver, clock } = harness();
    const s = scope();
    const first = await driver.setIdempotent(s, 'r', '1', {}, NO_LIMIT, claim('short', 'h1', 1000));
    clock.now += 999;
    expect(await driver.setIdempotent(s, 'r', '1', {}, NO_LIMIT, claim('short', 'h1', 1000))).toMatchObject({ version: first.version, replayed: true });
    clock.now += 1;
    // Past the retention the key names nothing: another request with it is a new write, not a mismatch.
    const second = await driver.setIdempotent(s, 'r', '2', {}, NO_LIMIT, claim('short', 'h2', 1000));
    expect(second).toMatchObject({ result: 'ok', replayed: false });
    expect(second.version).toBeGreaterThan(first.version!);
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: idempotencyRecordBytes('short') });
    clock.now += 1000;
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 0, bytes: 0 });
    expect(await driver.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await driver.setIdempotent(s, 'r', '3', {}, NO_LIMIT, claim('short', 'h3', 1000))).toMatchObject({ result: 'ok', replayed: false });
  });

  it('outcomes are not keys, but their bytes count against the namespace byte budget while retained', async () => {
    const { driver, clock } = harness();
    const ns = `idemb${process.pid}x${++seq}`;
    const s = scope(ns);
    const record = idempotencyRecordBytes('kkkk'); // 68
    const budget = { maxKeys: 1, namespaceByteBudget: record + 10 };
    // maxKeys 1: one key however many outcomes are stored.
    await driver.setIdempotent(s, 'k', '12345', {}, budget, claim('kkkk', 'h', 5000)); // 5 + 68 = 73 <= 78
    expect(await driver.metaCount(s)).toBe(1);
    // A plain write may use what the outcome leaves: 10 bytes, not 11.
    await driver.setCounted(s, 'k', '1234567890', {}, budget);
    expect(await codeOf(driver.setCounted(s, 'k', '12345678901', {}, budget))).toBe('quota_keys');
    // A second outcome does not fit beside the first (value 1 + 2 × 68 > 78), and is not stored.
    expect(await codeOf(driver.setIdempotent(s, 'k', '1', {}, budget, claim('jjjj', 'h', 5000)))).toBe('quota_keys');
    expect(await driver.idempotencyUsage(s)).toEqual({ records: 1, bytes: record });
    // A delete is never refused for the budget (it frees space); its outcome counts from then on.
    expect(await driver.deleteIdempotent(s, 'k', {}, claim('dddd', 'h', 5000))).toMatchObject({ result: 'deleted' });
    expect((await driver.idempotencyUsage(s)).bytes).toBe(2 * record);
    expect(await codeOf(driver.setCounted(s, 'k', '1', {}, { ...budget, namespaceByteBudget: 2 * record }))).toBe('quota_keys');
    // Past their retention the outcomes stop counting at once, swept or not.
    clock.now += 5000;
    await driver.setIdempotent(s, 'k', '1234567890', {}, budget, claim('jjjj', 'h', 5000));
    expect(await driver.usage(s)).toEqual({ keys: 1, bytes: 10 });
  });

  it('concurrent retries of one key apply once (16 at a time, set, create-only and delete)', async () => {
    const { driver } = harness();
    const s = scope();
    const same = claim('burst', 'h');
    const sets = await Promise.all(Array.from({ length: 16 }, () => driver.setIdempotent(s, 'race', '"x"', {}, NO_LIMIT, same)));
    expect(new Set(sets.map((o) => o.version)).size).toBe(1);
    expect(sets.filter((o) => !o.replayed)).toHaveLength(1);
    expect((await driver.get(s, 'race'))?.version).toBe(sets[0]!.version);

    const creates = await Promise.all(Array.from({ length: 16 }, () => driver.setIdempotent(s, 'fresh', '1', { ifVersion: 0 }, NO_LIMIT, claim('create', 'h'))));
    expect(creates.every((o) => o.status === 200 && o.version === creates[0]!.version)).toBe(true);
    expect(creates.filter((o) => !o.replayed)).toHaveLength(1);

    const deletes = await Promise.all(Array.from({ length: 16 }, () => driver.deleteIdempotent(s, 'race', {}, claim('drop', 'h'))));
    expect(deletes.every((o) => o.status === 200 && o.result === 'deleted')).toBe(true);
    expect(deletes.filter((o) => !o.replayed)).toHaveLength(1);

    // The control: without one key the same burst writes 16 times.
    const plain = await Promise.all(Array.from({ length: 16 }, (_, i) => driver.setIdempotent(s, 'race2', '"x"', {}, NO_LIMIT, claim(`k${i}`, 'h'))));
    expect(new Set(plain.map((o) => o.version)).size).toBe(16);
  });
}
