import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { dropPrefix, testPrefix, testRedis, TEST_REDIS_URL, waitFor } from './testing/redis.ts';
import { bytes, fakeSyncable, text, TOMBSTONE } from './testing/fake-syncable.ts';
import { entityKey } from './keys.ts';
import { Registers } from './testing/registers.ts';
import type { StateSyncLogger, StateSyncOptions } from './options.ts';
import { pullNamespace } from './pull.ts';
import { pushNamespace } from './push.ts';
import { createStateSync, type StateSync } from './state-sync.ts';

function capturingLogger(): StateSyncLogger & { warnings: Array<[string, unknown]> } {
  const warnings: Array<[string, unknown]> = [];
  return { warnings, info: () => undefined, error: (m, f) => warnings.push([m, f]), warn: (m, f) => warnings.push([m, f]) };
}

let redis: Redis;
const prefixes: string[] = [];
const managers: StateSync[] = [];

function manager(options: StateSyncOptions = {}): { sync: StateSync; prefix: string; logger: ReturnType<typeof capturingLogger> } {
  const prefix = options.keyPrefix ?? testPrefix();
  prefixes.push(prefix);
  const logger = capturingLogger();
  const sync = createStateSync(redis, { keyPrefix: prefix, logger, env: {}, ...options });
  managers.push(sync);
  return { sync, prefix, logger };
}

beforeAll(() => {
  redis = testRedis();
});
afterEach(async () => {
  await Promise.all(managers.splice(0).map((m) => m.stop()));
  vi.restoreAllMocks();
});
afterAll(async () => {
  for (const p of prefixes) await dropPrefix(redis, p);
  await redis.quit();
});

describe('write-through put/delete', () => {
  it('rejects an empty namespace or id', async () => {
    const { sync } = manager();
    await expect(sync.put('', 'a', bytes('x'))).rejects.toThrow(/namespace/);
    await expect(sync.delete('', 'a')).rejects.toThrow(/namespace/);
    await expect(sync.put('ns', '', bytes('x'))).rejects.toThrow(/id/);
  });

  it('put is a SETEX with the record TTL; delete is DEL, or a tombstone when supported', async () => {
    const { sync, prefix } = manager({ recordTtlMs: 30_000 });
    const tomb = fakeSyncable('tombs', { tombstones: true });
    sync.register(tomb);
    await sync.put('plain', 'a', bytes('hello'));
    const key = entityKey(prefix, 'plain', 'a');
    expect(await redis.get(key)).toBe('hello');
    const ttl = await redis.ttl(key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30);
    await sync.delete('plain', 'a');
    expect(await redis.exists(key)).toBe(0);

    await sync.put('tombs', 'b', bytes('v'));
    await sync.delete('tombs', 'b');
    const tkey = entityKey(prefix, 'tombs', 'b');
    expect(await redis.get(tkey)).toBe(TOMBSTONE);
    expect(await redis.ttl(tkey)).toBeGreaterThan(0);
    expect(await redis.ttl(tkey)).toBeLessThanOrEqual(30);
  });
});

describe('pull', () => {
  it('SCANs with COUNT 500 and MGETs in batches (35 keys, batch 10 → 4 MGETs)', async () => {
    const { sync, prefix } = manager({ mgetBatchSize: 10 });
    const s = fakeSyncable('batching');
    sync.register(s);
    for (let i = 0; i < 35; i++) await sync.put('batching', `k${i}`, bytes(`v${i}`));
    const scan = vi.spyOn(redis, 'scan');
    const mget = vi.spyOn(redis, 'mgetBuffer');
    const outcome = await sync.syncOnce();
    expect(outcome.ok).toBe(true);
    expect(outcome.results[0]?.pull?.read).toBe(35);
    expect(s.data.size).toBe(35);
    expect(s.data.get('k7')).toBe('v7');
    expect(mget).toHaveBeenCalledTimes(4);
    expect(mget.mock.calls.map((c) => (c[0] as unknown as string[]).length).sort((a, b) => a - b)).toEqual([5, 10, 10, 10]);
    expect(scan.mock.calls[0]).toEqual(['0', 'MATCH', `${prefix}:{batching}:e:*`, 'COUNT', 500]);
  });

  it('ignores other namespaces and look-alike keys', async () => {
    const { sync, prefix } = manager();
    const s = fakeSyncable('mine');
    sync.register(s);
    await sync.put('mine', 'a', bytes('1'));
    await sync.put('mine-too', 'b', bytes('2'));
    await sync.put('other', 'c', bytes('3'));
    await redis.setex(`${prefix}:{mine}:x:d`, 60, 'not an entity');
    await sync.syncOnce();
    expect([...s.data.keys()]).toEqual(['a']);
  });

  it('tombstones delete locally; stale records are DELeted and not applied; apply errors are skipped', async () => {
    const { sync, prefix, logger } = manager();
    const s = fakeSyncable('mixed', { tombstones: true, stale: true, failApplyFor: new Set(['bad']) });
    s.data.set('gone', 'old');
    sync.register(s);
    await redis.setex(entityKey(prefix, 'mixed', 'gone'), 60, TOMBSTONE);
    await redis.setex(entityKey(prefix, 'mixed', 'old'), 60, 'stale-record');
    await redis.setex(entityKey(prefix, 'mixed', 'bad'), 60, 'x');
    await redis.setex(entityKey(prefix, 'mixed', 'good'), 60, 'fresh');
    const outcome = await sync.syncOnce();
    expect(outcome.ok).toBe(true);
    expect(s.events).toContain('deleteLocal:gone');
    expect(s.events).not.toContain('apply:gone');
    expect(s.events).not.toContain('apply:old');
    expect(s.data.has('gone')).toBe(false);
    expect(s.data.has('old')).toBe(false);
    expect(await redis.exists(entityKey(prefix, 'mixed', 'old'))).toBe(0);
    expect(s.data.get('good')).toBe('fresh');
    expect(outcome.results[0]?.pull).toMatchObject({ read: 4, tombstones: 1, staleDeleted: 1, applyErrors: 1, applied: 1 });
    expect(logger.warnings.some(([m]) => /applyRemote failed/.test(m))).toBe(true);
  });

  it('hooks wrap the pull once each and not the push', async () => {
    const { sync } = manager();
    const s = fakeSyncable('hooked', { hooks: true });
    s.data.set('local', 'v');
    sync.register(s);
    await sync.put('hooked', 'remote', bytes('r'));
    await sync.syncOnce();
    expect(s.events).toEqual(['onSyncStart', 'apply:remote', 'onSyncEnd', 'snapshot']);
  });
});

describe('push', () => {
  it('full push writes the snapshot with the record TTL; an empty snapshot sends nothing', async () => {
    const { sync, prefix } = manager({ recordTtlMs: 45_000 });
    const full = fakeSyncable('full');
    for (let i = 0; i < 60; i++) full.data.set(`e${i}`, `v${i}`);
    const empty = fakeSyncable('empty');
    sync.register(full);
    sync.register(empty);
    const pipeline = vi.spyOn(redis, 'pipeline');
    const outcome = await sync.syncOnce();
    expect(outcome.results.map((r) => r.push)).toEqual([
      { mode: 'full', upserts: 60, deletes: 0 },
      { mode: 'full', upserts: 0, deletes: 0 },
    ]);
    expect(pipeline).toHaveBeenCalledTimes(3); // 60 writes in chunks of 25; none for the empty table
    for (const id of ['e0', 'e59']) {
      const key = entityKey(prefix, 'full', id);
      expect(await redis.get(key)).toBe(id.replace('e', 'v'));
      const ttl = await redis.ttl(key);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(45);
    }
  });

  it('warns about a snapshot over the entry-count threshold', async () => {
    const { sync, logger } = manager({ warnSnapshotEntries: 5 });
    const big = fakeSyncable('big');
    for (let i = 0; i < 6; i++) big.data.set(`e${i}`, 'v');
    sync.register(big);
    await sync.syncOnce();
    expect(logger.warnings.some(([m]) => /large full snapshot/.test(m))).toBe(true);
  });

  it('delta pushes upserts, deletes as tombstones (or DEL) and clears dirty after success', async () => {
    const { sync, prefix } = manager({ recordTtlMs: 20_000 });
    const withTombs = fakeSyncable('delta-t', { delta: true, tombstones: true });
    const withDel = fakeSyncable('delta-d', { delta: true });
    sync.register(withTombs);
    sync.register(withDel);
    for (const s of [withTombs, withDel]) {
      s.setLocal('a', 'A');
      s.setLocal('b', 'B');
      s.data.set('untouched', 'U'); // not dirty → not pushed
    }
    await sync.syncOnce();
    for (const ns of ['delta-t', 'delta-d']) {
      expect(await redis.get(entityKey(prefix, ns, 'a'))).toBe('A');
      expect(await redis.exists(entityKey(prefix, ns, 'untouched'))).toBe(0);
      const ttl = await redis.ttl(entityKey(prefix, ns, 'a'));
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(20);
    }
    expect(withTombs.dirty.size).toBe(0);
    expect(withTombs.events.filter((e) => e === 'clearDirty')).toHaveLength(1);

    withTombs.deleteLocalEntry('a');
    withDel.deleteLocalEntry('a');
    const outcome = await sync.syncOnce();
    expect(outcome.results.map((r) => r.push)).toEqual([
      { mode: 'delta', upserts: 0, deletes: 1 },
      { mode: 'delta', upserts: 0, deletes: 1 },
    ]);
    const tkey = entityKey(prefix, 'delta-t', 'a');
    expect(await redis.get(tkey)).toBe(TOMBSTONE);
    const ttl = await redis.ttl(tkey);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(20);
    expect(await redis.exists(entityKey(prefix, 'delta-d', 'a'))).toBe(0);
    expect(withTombs.deleted.size).toBe(0);
  });

  it('a failed push keeps the delta dirty (Redis refuses SETEX), a later success clears it', async () => {
    const user = `orrery-test-nosetex-${randomUUID().slice(0, 8)}`;
    await redis.call('ACL', 'SETUSER', user, 'on', 'nopass', '~*', '&*', '+@all', '-setex');
    const limited = new Redis(TEST_REDIS_URL, { username: user, password: 'x', maxRetriesPerRequest: 1 });
    try {
      const prefix = testPrefix();
      prefixes.push(prefix);
      const logger = capturingLogger();
      const s = fakeSyncable('refused', { delta: true });
      s.setLocal('a', 'A');
      const failing = createStateSync(limited, { keyPrefix: prefix, logger, env: {} });
      failing.register(s);
      const outcome = await failing.syncOnce();
      expect(outcome.ok).toBe(false);
      expect(outcome.results[0]?.error).toMatch(/NOPERM|permission/i);
      expect(s.dirty.has('a')).toBe(true);
      expect(s.events).not.toContain('clearDirty');
      expect(failing.status().syncables[0]?.lastError).toMatch(/NOPERM|permission/i);
      await failing.stop();

      const ok = await pushNamespace(redis, s, {
        keyPrefix: prefix,
        recordTtlSeconds: 60,
        setexChunkSize: 25,
        warnSnapshotEntries: 10_000,
        warnAverageEntryBytes: 512 * 1024,
        logger,
      });
      expect(ok).toEqual({ mode: 'delta', upserts: 1, deletes: 0 });
      expect(s.dirty.size).toBe(0);
    } finally {
      limited.disconnect();
      await redis.call('ACL', 'DELUSER', user);
    }
  });
});

describe('lifecycle', () => {
  it('register after start and bad namespaces are ignored; double stop is safe', async () => {
    const { sync, logger } = manager({ syncPeriodMs: 200 });
    expect(sync.register(fakeSyncable(''))).toBe(false);
    expect(sync.register(fakeSyncable('first'))).toBe(true);
    expect(sync.register(fakeSyncable('first'))).toBe(false);
    sync.start();
    expect(sync.register(fakeSyncable('late'))).toBe(false);
    expect(logger.warnings.some(([m]) => /register after start/.test(m))).toBe(true);
    await waitFor(() => sync.status().cycles.ok >= 1, 10_000, 'a cycle');
    expect(sync.status().syncables.map((s) => s.syncable)).toEqual(['first']);
    await Promise.all([sync.stop(), sync.stop()]);
    await sync.stop();
    const cycles = sync.status().cycles.ok;
    await new Promise((r) => setTimeout(r, 500));
    expect(sync.status().cycles.ok).toBe(cycles); // the loop really stopped
    expect(sync.status().stopped).toBe(true);
  });

  it('stop waits at most stopWaitTimeout for a stuck cycle', async () => {
    const { sync, logger } = manager({ stopWaitTimeoutMs: 100, opTimeoutMs: 60_000 });
    sync.register(fakeSyncable('slow', { hooks: true, slowPullMs: 1_500 }));
    void sync.syncOnce();
    await new Promise((r) => setTimeout(r, 50));
    const t0 = Date.now();
    await sync.stop();
    expect(Date.now() - t0).toBeLessThan(1_000);
    expect(logger.warnings.some(([m]) => /stop gave up/.test(m))).toBe(true);
  });

  it('the op timeout bounds each pull and each push on its own, not the whole cycle (seed: per-operation)', async () => {
    // Two pulls of 300 ms each: every operation is within 500 ms, the cycle as a whole is not.
    const { sync } = manager({ opTimeoutMs: 500 });
    sync.register(fakeSyncable('slow-a', { hooks: true, slowPullMs: 300 }));
    sync.register(fakeSyncable('slow-b', { hooks: true, slowPullMs: 300 }));
    const outcome = await sync.syncOnce();
    expect(outcome.results.map((r) => [r.namespace, r.error])).toEqual([
      ['slow-a', undefined],
      ['slow-b', undefined],
    ]);
    expect(outcome.ok).toBe(true);
    expect(outcome.durationMs).toBeGreaterThanOrEqual(500);
  });

  it('a pull past the op timeout fails that syncable alone; the next one syncs in the same cycle', async () => {
    const { sync, prefix } = manager({ opTimeoutMs: 150 });
    const slow = fakeSyncable('slow-pull', { hooks: true, slowPullMs: 600 });
    const quick = fakeSyncable('quick', { delta: true });
    quick.setLocal('k', 'v');
    sync.register(slow);
    sync.register(quick);
    const outcome = await sync.syncOnce();
    expect(outcome.ok).toBe(false);
    expect(outcome.results[0]).toMatchObject({ namespace: 'slow-pull', error: expect.stringMatching(/pull of slow-pull exceeded its operation timeout of 150 ms/) as unknown });
    expect(outcome.results[1]).toMatchObject({ namespace: 'quick', push: { upserts: 1 } });
    expect(outcome.results[1]!.error).toBeUndefined();
    expect(await redis.get(entityKey(prefix, 'quick', 'k'))).toBe('v');
    const st = sync.status().syncables;
    expect(st[0]!.lastError).toMatch(/operation timeout/);
    expect(st[1]!.lastSuccessfulCycle).toBeDefined();
    expect(outcome.durationMs).toBeLessThan(550);
  });

  it('a push past the op timeout fails with the push named, and its dirty entries stay dirty', async () => {
    const { sync } = manager({ opTimeoutMs: 150 });
    const s = fakeSyncable('slow-push', { delta: true, slowPushMs: 600 });
    s.setLocal('k', 'v');
    sync.register(s);
    const outcome = await sync.syncOnce();
    expect(outcome.ok).toBe(false);
    expect(outcome.results[0]?.error).toMatch(/push of slow-push exceeded its operation timeout of 150 ms/);
    await new Promise((r) => setTimeout(r, 600)); // the abandoned push finds its deadline passed
    expect(s.events).not.toContain('clearDirty');
    expect([...s.dirty]).toEqual(['k']);
  });

  it('status and metrics report cycles, entity counts and backoff', async () => {
    const { sync } = manager({ syncPeriodMs: 150 });
    const s = fakeSyncable('counted');
    s.data.set('a', '1');
    s.data.set('b', '2');
    sync.register(s);
    sync.start();
    await waitFor(() => sync.status().cycles.ok >= 2, 10_000, 'two cycles');
    const st = sync.status().syncables[0]!;
    expect(st.syncable).toBe('counted');
    expect(st.entitiesPushed).toBe(2);
    expect(st.entitiesPulled).toBe(2);
    expect(st.lastSuccessfulCycle).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(st.backoffSeconds).toBeCloseTo(0.15);
    const text = await sync.registry.metrics();
    expect(text).toMatch(/orrery_statesync_cycles_total\{result="ok"\} [1-9]/);
    expect(text).toMatch(/orrery_statesync_entities_total\{direction="pushed"\} [1-9]/);
    expect(text).toMatch(/orrery_statesync_entities_total\{direction="pulled"\} [1-9]/);
    expect(text).toMatch(/orrery_statesync_cycle_seconds_count [1-9]/);
    expect(text).toMatch(/orrery_statesync_backoff_seconds 0\.15/);
  });
});

describe('two managers', () => {
  it('converge: a change on A is visible on B within about one period plus one cycle', { timeout: 30_000 }, async () => {
    const prefix = testPrefix();
    const period = 300;
    const a = manager({ keyPrefix: prefix, syncPeriodMs: period }).sync;
    const b = manager({ keyPrefix: prefix, syncPeriodMs: period }).sync;
    const ta = new Registers('regs');
    const tb = new Registers('regs');
    a.register(ta);
    b.register(tb);
    a.start();
    b.start();
    await waitFor(() => a.status().cycles.ok >= 1 && b.status().cycles.ok >= 1, 10_000, 'first cycles');

    ta.set('x', 'from-a');
    const t0 = Date.now();
    await waitFor(() => tb.get('x') === 'from-a', 10_000, 'B to see A');
    // A pushes within one jittered period, B pulls within its next one; allow slack for a busy machine.
    expect(Date.now() - t0).toBeLessThan(2 * period * 1.1 + 1_500);

    tb.set('y', 'from-b');
    await waitFor(() => ta.get('y') === 'from-b', 10_000, 'A to see B');
    tb.remove('x');
    await waitFor(() => ta.get('x') === undefined, 10_000, 'the tombstone to reach A');
    expect(tb.get('y')).toBe('from-b');
  });
});

describe('pullNamespace', () => {
  it('reads nothing and applies nothing for an empty namespace', async () => {
    const s = fakeSyncable('nothing-here');
    const r = await pullNamespace(redis, s, { keyPrefix: testPrefix(), scanCount: 500, mgetBatchSize: 200, logger: capturingLogger() });
    expect(r).toEqual({ read: 0, applied: 0, tombstones: 0, staleDeleted: 0, applyErrors: 0 });
    expect(s.events).toEqual([]);
    expect(text(bytes('é'))).toBe('é');
  });
});
