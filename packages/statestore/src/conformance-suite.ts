/**
 * The one conformance suite every driver passes (RFC-0023 statestoretest). Imported by the
 * drivers' test files; the clock is injected so TTL runs without sleeping.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFeedContract } from './change-feed-contract.ts';
import { StateStoreError } from './errors.ts';
import { fencingContract } from './fencing-contract.ts';
import { idempotentWriteContract } from './idempotent-write-contract.ts';
import { recordedReadContract } from './recorded-read-contract.ts';
import { ScopedStore } from './scoped-store.ts';
import { STATE_OWNER, type Scope, type StateDriver } from './types.ts';

export interface Harness {
  driver: StateDriver;
  clock: { now: number };
  /** A second driver on the same storage (Postgres: another statesvc replica), for the fencing contract. */
  peer?: StateDriver;
  cleanup(): Promise<void>;
}

let scopeSeq = 0;
/** A fresh keyspace per test so tests never see each other's keys. */
export const freshScope = (namespace = 'conf'): Scope => ({ namespace, owner: STATE_OWNER, keyspace: `ks-${process.pid}-${++scopeSeq}` });

async function expectCode(p: Promise<unknown>, code: string): Promise<void> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  expect(err, `expected ${code}`).toBeInstanceOf(StateStoreError);
  expect((err as StateStoreError).code).toBe(code);
}

export function describeConformance(name: string, open: () => Promise<Harness>): void {
  describe(`statestore conformance: ${name}`, () => {
    let h: Harness;
    beforeAll(async () => { h = await open(); }, 60_000);
    afterAll(async () => { await h?.cleanup(); });

    idempotentWriteContract(() => h);
    recordedReadContract(() => h);
    changeFeedContract(() => h);
    fencingContract(() => h);

    it('get of a missing key is null; set then get returns value and version', async () => {
      const s = freshScope();
      expect(await h.driver.get(s, 'a')).toBeNull();
      const { version } = await h.driver.set(s, 'a', '{"n":1}');
      expect(version).toBeGreaterThan(0);
      expect(await h.driver.get(s, 'a')).toEqual({ value: '{"n":1}', version, expiresAt: null });
    });

    it('versions only grow, also across delete and re-create', async () => {
      const s = freshScope();
      const v1 = (await h.driver.set(s, 'k', '1')).version;
      const v2 = (await h.driver.set(s, 'k', '2')).version;
      expect(v2).toBeGreaterThan(v1);
      expect(await h.driver.delete(s, 'k')).toBe(true);
      const v3 = (await h.driver.set(s, 'k', '3')).version;
      expect(v3).toBeGreaterThan(v2);
    });

    it('delete reports whether a live key was removed', async () => {
      const s = freshScope();
      expect(await h.driver.delete(s, 'nope')).toBe(false);
      await h.driver.set(s, 'x', 'true');
      expect(await h.driver.delete(s, 'x')).toBe(true);
      expect(await h.driver.get(s, 'x')).toBeNull();
      expect(await h.driver.delete(s, 'x')).toBe(false);
    });

    it('ifVersion 0 is create-only', async () => {
      const s = freshScope();
      await h.driver.set(s, 'c', '1', { ifVersion: 0 });
      await expectCode(h.driver.set(s, 'c', '2', { ifVersion: 0 }), 'version_conflict');
      expect((await h.driver.get(s, 'c'))?.value).toBe('1');
    });

    it('ifVersion > 0 is compare-and-swap', async () => {
      const s = freshScope();
      const { version } = await h.driver.set(s, 'c', '1');
      await expectCode(h.driver.set(s, 'c', '2', { ifVersion: version + 1000 }), 'version_conflict');
      const next = await h.driver.set(s, 'c', '3', { ifVersion: version });
      expect(next.version).toBeGreaterThan(version);
      await expectCode(h.driver.set(s, 'c', '4', { ifVersion: version }), 'version_conflict');
      await expectCode(h.driver.set(s, 'missing', '4', { ifVersion: 1 }), 'version_conflict');
      expect((await h.driver.get(s, 'c'))?.value).toBe('3');
    });

    it('ifVersion undefined is unconditional', async () => {
      const s = freshScope();
      await h.driver.set(s, 'u', '1');
      await h.driver.set(s, 'u', '2');
      expect((await h.driver.get(s, 'u'))?.value).toBe('2');
    });

    it('delete honours ifVersion', async () => {
      const s = freshScope();
      const { version } = await h.driver.set(s, 'd', '1');
      await expectCode(h.driver.delete(s, 'd', { ifVersion: version + 1 }), 'version_conflict');
      expect(await h.driver.delete(s, 'd', { ifVersion: version })).toBe(true);
    });

    it('only one of many concurrent CAS writers at one version wins', async () => {
      const s = freshScope();
      const { version } = await h.driver.set(s, 'race', '0');
      const results = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => h.driver.set(s, 'race', String(i), { ifVersion: version })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const creators = await Promise.allSettled(Array.from({ length: 16 }, (_, i) => h.driver.set(s, 'fresh', String(i), { ifVersion: 0 })));
      expect(creators.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    });

    it('TTL: a key expires at its deadline, for reads, lists and counts', async () => {
      const s = freshScope();
      await h.driver.set(s, 't', '1', { ttlMs: 1000 });
      await h.driver.set(s, 'p', '1');
      expect((await h.driver.get(s, 't'))?.expiresAt).toBe(h.clock.now + 1000);
      h.clock.now += 999;
      expect(await h.driver.get(s, 't')).not.toBeNull();
      h.clock.now += 1;
      expect(await h.driver.get(s, 't')).toBeNull();
      expect((await h.driver.list(s)).keys).toEqual(['p']);
      expect(await h.driver.usage(s)).toEqual({ keys: 1, bytes: 1 });
      // An expired key behaves as absent: create-only succeeds, CAS against its old version fails.
      await expectCode(h.driver.set(s, 't', '2', { ifVersion: 1 }), 'version_conflict');
      await h.driver.set(s, 't', '2', { ifVersion: 0 });
      expect((await h.driver.get(s, 't'))?.value).toBe('2');
    });

    it('TTL: a rewrite without TTL clears the deadline; the sweeper removes expired rows', async () => {
      const s = freshScope();
      await h.driver.set(s, 'a', '1', { ttlMs: 10 });
      await h.driver.set(s, 'a', '1');
      await h.driver.set(s, 'b', '1', { ttlMs: 10 });
      h.clock.now += 20;
      expect(await h.driver.get(s, 'a')).not.toBeNull();
      expect(await h.driver.metaCount(s)).toBe(2);
      expect(await h.driver.sweepExpired()).toBeGreaterThanOrEqual(1);
      expect(await h.driver.metaCount(s)).toBe(1);
      expect(await h.driver.delete(s, 'b')).toBe(false);
    });

    it('list pages in byte order with an opaque cursor and honours prefixes', async () => {
      const s = freshScope();
      const keys = ['b', 'a', 'a/1', 'a/2', 'a/10', 'é', 'z', '\u{1F600}', '\uFFFD', 'A'];
      for (const k of keys) await h.driver.set(s, k, '0');
      const byBytes = [...keys].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)));
      const seen: string[] = [];
      let cursor = '';
      do {
        const page = await h.driver.list(s, { cursor, limit: 3 });
        expect(page.keys.length).toBeLessThanOrEqual(3);
        seen.push(...page.keys);
        cursor = page.cursor;
      } while (cursor);
      expect(seen).toEqual(byBytes);
      expect((await h.driver.list(s, { prefix: 'a/' })).keys).toEqual(['a/1', 'a/10', 'a/2']);
      const p1 = await h.driver.list(s, { prefix: 'a', limit: 2 });
      expect(p1.keys).toEqual(['a', 'a/1']);
      expect((await h.driver.list(s, { prefix: 'a', cursor: p1.cursor })).keys).toEqual(['a/10', 'a/2']);
      expect(await h.driver.list(s, { prefix: 'nothing' })).toEqual({ keys: [], cursor: '' });
      await expectCode(h.driver.list(s, { limit: 0 }), 'bad_request');
      await expectCode(h.driver.list(s, { cursor: '!!' }), 'bad_request');
    });

    it('list while keys are inserted concurrently returns every pre-existing key exactly once', async () => {
      const s = freshScope();
      const base = Array.from({ length: 60 }, (_, i) => `k${String(i).padStart(3, '0')}`);
      for (const k of base) await h.driver.set(s, k, '1');
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop && i < 200; i++) await h.driver.set(s, `k${String(i % 60).padStart(3, '0')}-new${i}`, '2');
      })();
      const seen: string[] = [];
      let cursor = '';
      do {
        const page = await h.driver.list(s, { cursor, limit: 7 });
        seen.push(...page.keys);
        cursor = page.cursor;
      } while (cursor);
      stop = true;
      await writer;
      expect(new Set(seen).size).toBe(seen.length);
      for (const k of base) expect(seen).toContain(k);
      expect([...seen].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))).toEqual(seen);
    });

    it('setCounted: the key-count boundary is exact, overwrites and expired keys do not count', async () => {
      const s = freshScope();
      const budget = { maxKeys: 3 };
      await h.driver.setCounted(s, 'a', '1', {}, budget);
      await h.driver.setCounted(s, 'b', '1', { ttlMs: 50 }, budget);
      await h.driver.setCounted(s, 'c', '1', {}, budget);
      await expectCode(h.driver.setCounted(s, 'd', '1', {}, budget), 'quota_keys');
      await h.driver.setCounted(s, 'a', '2', {}, budget); // overwrite at the boundary is fine
      h.clock.now += 50; // b expires: it stops counting at once
      await h.driver.setCounted(s, 'd', '1', {}, budget);
      expect(await h.driver.usage(s)).toEqual({ keys: 3, bytes: 3 });
      expect(await h.driver.metaCount(s)).toBe(3);
      await expectCode(h.driver.setCounted(s, 'e', '1', {}, budget), 'quota_keys');
      await h.driver.delete(s, 'a');
      await h.driver.setCounted(s, 'e', '1', {}, budget);
      expect(await h.driver.metaCount(s)).toBe(3);
    });

    it('setCounted: the namespace byte budget spans keyspaces and counts overwrites by difference', async () => {
      const ns = `nsb${process.pid}x${++scopeSeq}`;
      const a = freshScope(ns);
      const b = freshScope(ns);
      const budget = { maxKeys: 100, namespaceByteBudget: 10 };
      await h.driver.setCounted(a, 'x', '12345', {}, budget);
      await h.driver.setCounted(b, 'y', '1234', {}, budget);
      await expectCode(h.driver.setCounted(b, 'z', '12', {}, budget), 'quota_keys');
      await h.driver.setCounted(a, 'x', '123456', {}, budget); // 6 + 4 = 10
      await expectCode(h.driver.setCounted(a, 'x', '1234567', {}, budget), 'quota_keys');
      const u = await h.driver.namespaceUsage(ns);
      expect(u.bytes).toBe(10);
      expect(u.keyspaces.map((k) => k.keyspace)).toEqual([a.keyspace, b.keyspace].sort());
      expect(await h.driver.namespaces()).toContain(ns);
    });

    it('deleteKeyspace removes every key and the #meta row of one keyspace, idempotently', async () => {
      const ns = `del${process.pid}x${++scopeSeq}`;
      const s = freshScope(ns);
      const sibling = freshScope(ns);
      const budget = { maxKeys: 3, namespaceByteBudget: 20 };
      await h.driver.setCounted(s, 'a', '12345', {}, budget);
      await h.driver.setCounted(s, 'b', '12345', { ttlMs: 10 }, budget);
      await h.driver.setCounted(s, 'c', '12345', {}, budget);
      await h.driver.setCounted(sibling, 'a', '1', {}, budget);
      h.clock.now += 10; // b has expired but is not swept: it is removed, not counted
      expect(await h.driver.deleteKeyspace(s)).toBe(2);
      expect(await h.driver.get(s, 'a')).toBeNull();
      expect(await h.driver.list(s)).toEqual({ keys: [], cursor: '' });
      expect(await h.driver.usage(s)).toEqual({ keys: 0, bytes: 0 });
      expect(await h.driver.metaCount(s)).toBe(0);
      expect(await h.driver.get(sibling, 'a')).not.toBeNull();
      expect((await h.driver.namespaceUsage(ns)).bytes).toBe(1);
      expect(await h.driver.deleteKeyspace(s)).toBe(0);
      expect(await h.driver.deleteKeyspace(freshScope(ns))).toBe(0);
      // The keyspace starts over with a full budget and an exact count.
      for (const k of ['x', 'y', 'z']) await h.driver.setCounted(s, k, '12345', {}, budget);
      await expectCode(h.driver.setCounted(s, 'w', '1', {}, budget), 'quota_keys');
      expect(await h.driver.metaCount(s)).toBe(3);
    });

    it('deleteKeyspace racing writers leaves #meta equal to the stored rows', async () => {
      const s = freshScope();
      await Promise.all([
        ...Array.from({ length: 24 }, (_, i) => h.driver.setCounted(s, `k${i % 12}`, String(i), {}, { maxKeys: 8 }).catch(() => undefined)),
        h.driver.deleteKeyspace(s),
        h.driver.delete(s, 'k1'),
        h.driver.deleteKeyspace(s),
      ]);
      const u = await h.driver.usage(s);
      expect(await h.driver.metaCount(s)).toBe(u.keys);
      expect(u.keys).toBeLessThanOrEqual(8);
    });

    it('value sizes are counted in UTF-8 bytes', async () => {
      const s = freshScope();
      await h.driver.set(s, 'u', '"éé"');
      expect(await h.driver.usage(s)).toEqual({ keys: 1, bytes: 6 });
    });

    it('keyspaces and namespaces are isolated', async () => {
      const a = freshScope('iso-a');
      const b = { ...a, namespace: 'iso-b' };
      await h.driver.set(a, 'k', '1');
      expect(await h.driver.get(b, 'k')).toBeNull();
      expect((await h.driver.list(b)).keys).toEqual([]);
      expect(await h.driver.delete(b, 'k')).toBe(false);
      expect(await h.driver.get(a, 'k')).not.toBeNull();
    });

    it('scoped store: exact value-size boundary, default TTL, undeclared keyspaces refused', async () => {
      const s = freshScope();
      const scoped = new ScopedStore(h.driver, (x) => (x.keyspace === s.keyspace ? { maxKeys: 2, maxValueBytes: 10, defaultTtlMs: 5000 } : undefined));
      await scoped.set(s, 'a', '"12345678"'); // 10 bytes: at the limit
      await expectCode(scoped.set(s, 'b', '"123456789"'), 'quota_value_bytes');
      await expectCode(scoped.set(s, 'b', '"ééééé"'), 'quota_value_bytes'); // 12 UTF-8 bytes
      expect((await scoped.get(s, 'a'))?.expiresAt).toBe(h.clock.now + 5000);
      await scoped.set(s, 'p', '1', { ttlMs: 0 }); // explicit 0 overrides the default: no expiry
      expect((await scoped.get(s, 'p'))?.expiresAt).toBeNull();
      await expectCode(scoped.set(s, 'c', '1'), 'quota_keys');
      h.clock.now += 5000; // 'a' expires, freeing a slot at once
      await scoped.set(s, 'c', '1');
      expect((await scoped.list(s)).keys).toEqual(['c', 'p']);
      const other = freshScope();
      await expectCode(scoped.get(other, 'a'), 'forbidden');
      await expectCode(scoped.set(other, 'a', '1'), 'forbidden');
      await expectCode(scoped.delete(other, 'a'), 'forbidden');
      await expectCode(scoped.list(other), 'forbidden');
    });

    it('ping answers', async () => {
      await expect(h.driver.ping()).resolves.toBeUndefined();
    });
  });
}
