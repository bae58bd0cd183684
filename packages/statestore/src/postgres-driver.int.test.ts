import { describe, expect, it } from 'vitest';
import { connect, createTestDatabase, migrate } from '@orrery/db';
import { describeConformance } from './conformance-suite.ts';
import { DEFAULT_PIPELINE_DEPTH } from './open-driver.ts';
import { PostgresDriver } from './postgres-driver.ts';

describeConformance('postgres on PGlite', async () => {
  const clock = { now: 1_700_000_000_000 };
  const conn = connect({ url: '' });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now });
  return { driver, clock, cleanup: () => driver.close() };
});

describeConformance('postgres on Postgres', async () => {
  const clock = { now: 1_700_000_000_000 };
  const tdb = await createTestDatabase();
  const conn = connect({ url: tdb.url });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now });
  // A second statesvc replica on the same database (the fencing contract's cross-replica checks).
  const peer = new PostgresDriver(connect({ url: tdb.url }), { now: () => clock.now });
  return {
    driver,
    clock,
    peer,
    cleanup: async () => {
      await Promise.all([driver.close(), peer.close()]);
      await tdb.drop();
    },
  };
});

// The production shape (openDriver): single statements on the LIFO statement pool, transactions on conn's pool.
describeConformance('postgres on Postgres with a statement pool', async () => {
  const clock = { now: 1_700_000_000_000 };
  const tdb = await createTestDatabase();
  const conn = connect({ url: tdb.url, max: 3 });
  await migrate(conn);
  const driver = new PostgresDriver(conn, { now: () => clock.now, statementConnections: 4, pipelineDepth: DEFAULT_PIPELINE_DEPTH });
  return {
    driver,
    clock,
    cleanup: async () => {
      await driver.close();
      await tdb.drop();
    },
  };
});

// Concurrent reads of one keyspace share one statement (ReadBatcher): each must still get its own key's value.
describe('postgres batched reads', () => {
  it('answers concurrent reads — live, missing, expired, repeated, other keyspace, more than one statement of keys — like single reads', async () => {
    const clock = { now: 1_700_000_000_000 };
    const tdb = await createTestDatabase();
    const conn = connect({ url: tdb.url, max: 3 });
    await migrate(conn);
    const batched = new PostgresDriver(conn, { now: () => clock.now, statementConnections: 4, pipelineDepth: DEFAULT_PIPELINE_DEPTH });
    const single = new PostgresDriver(connect({ url: tdb.url, max: 2 }), { now: () => clock.now, batchReads: false });
    try {
      const a = { namespace: 'ns', owner: 'fn', keyspace: 'a' };
      const b = { namespace: 'ns', owner: 'fn', keyspace: 'b' };
      for (let i = 0; i < 150; i++) await batched.set(a, `k${i}`, `"a${i}"`, i % 10 === 0 ? { ttlMs: 1_000 } : {});
      await batched.set(b, 'k1', '"b1"');
      await batched.set(a, 'k1', '"a1 again"');
      clock.now += 2_000; // every tenth key of `a` has expired
      const reads: Array<[typeof a, string]> = [];
      for (let i = 0; i < 160; i++) reads.push([a, `k${i}`]); // 150 live or expired, 10 missing: three statements of ≤ 64 keys
      reads.push([a, 'k1'], [a, 'k2'], [b, 'k1'], [b, 'k2'], [a, 'ü\u00e9/ key']);
      const got = await Promise.all(reads.map(([s, k]) => batched.get(s, k)));
      const want = [];
      for (const [s, k] of reads) want.push(await single.get(s, k));
      expect(got).toEqual(want);
      expect(got[1]).toMatchObject({ value: '"a1 again"', expiresAt: null });
      expect(got[10]).toBeNull(); // expired
      expect(got[155]).toBeNull(); // never written
      expect(got[162]).toMatchObject({ value: '"b1"', expiresAt: null });
      expect(got.filter((e) => e !== null)).toHaveLength(135 + 2 + 1);
    } finally {
      await Promise.all([batched.close(), single.close()]);
      await tdb.drop();
    }
  });
});

// Concurrent overwrites of one keyspace share a transaction (WriteBatcher, migration 0008); what
// the batch cannot write (creates, expired keys, a value Postgres refuses) runs alone.
describe('postgres batched writes', () => {
  it('gives each concurrent write its own outcome and records every change once, in commit order', async () => {
    const clock = { now: 1_700_000_000_000 };
    const tdb = await createTestDatabase();
    const conn = connect({ url: tdb.url, max: 3 });
    await migrate(conn);
    const driver = new PostgresDriver(conn, { now: () => clock.now, statementConnections: 4, pipelineDepth: DEFAULT_PIPELINE_DEPTH });
    try {
      const a = { namespace: 'ns', owner: 'fn', keyspace: 'a' };
      const b = { namespace: 'ns', owner: 'fn', keyspace: 'b' };
      for (let i = 0; i < 80; i++) await driver.setCounted(a, `k${i}`, `"v${i}"`, i === 5 ? { ttlMs: 1_000 } : {}, { maxKeys: 81 });
      await driver.set(b, 'k0', '"b0"');
      const head0 = (await driver.changeWindow(a)).head;
      clock.now += 2_000; // k5 has expired
      const writes: Array<Promise<unknown>> = [];
      for (let i = 0; i < 80; i++) writes.push(driver.setCounted(a, `k${i}`, `"w${i}"`, i === 7 ? { ttlMs: 60_000 } : {}, { maxKeys: 81 }));
      writes.push(driver.setCounted(a, 'k1', '"w1 again"', {}, { maxKeys: 81 })); // the same key twice: the next batch
      writes.push(driver.setCounted(a, 'new1', '"n1"', {}, { maxKeys: 1000 })); // a create: runs alone
      writes.push(driver.setCounted(a, 'k9', '"bad \u0000"', {}, { maxKeys: 81 })); // Postgres refuses a NUL: fails alone
      writes.push(driver.set(b, 'k0', '"b0 again"'));
      const settled = await Promise.allSettled(writes);
      const codes = settled.map((s) => (s.status === 'fulfilled' ? 'ok' : ((s.reason as { code?: string }).code ?? String(s.reason))));
      expect(codes).toEqual([...Array(82).fill('ok'), 'bad_request', 'ok']);
      // Every write's version is its own and the stored values are the acknowledged ones.
      const versions = settled.slice(0, 82).map((s) => (s as PromiseFulfilledResult<{ version: number }>).value.version);
      expect(new Set(versions).size).toBe(82);
      for (let i = 0; i < 80; i++) {
        if (i === 1) continue;
        expect((await driver.get(a, `k${i}`))?.value).toBe(`"w${i}"`); // k9: the refused write changed nothing
      }
      expect((await driver.get(a, 'k7'))?.expiresAt).toBe(clock.now + 60_000);
      expect((await driver.get(a, 'new1'))?.value).toBe('"n1"');
      // They did share a transaction (rows written by one transaction have the same xmin): the
      // first 64 keys, but k5 (expired: alone) and k1 (written again later). The second batch
      // held the refused value, so its writes ran alone.
      const [tx] = await conn.pg!.unsafe("select max(n)::int as n from (select count(*) as n from state_entries where namespace = 'ns' and keyspace = 'a' group by xmin::text) t");
      expect(tx!.n).toBeGreaterThanOrEqual(62);
      const k1 = await driver.get(a, 'k1');
      const lastK1 = Math.max(versions[1]!, versions[80]!);
      expect(k1?.version).toBe(lastK1);
      expect(k1?.value).toBe(lastK1 === versions[80] ? '"w1 again"' : '"w1"');
      expect((await driver.get(b, 'k0'))?.value).toBe('"b0 again"');
      // The change feed: one `set` per acknowledged write (plus k5's `expire`), numbered without a hole.
      const page = await driver.changes(a, { since: head0, limit: 1000 });
      expect(page.changes.map((c) => c.seq)).toEqual(page.changes.map((_, i) => head0 + 1 + i));
      const sets = page.changes.filter((c) => c.op === 'set');
      expect(page.changes.filter((c) => c.op === 'expire').map((c) => c.key)).toEqual(['k5']);
      expect(sets.map((c) => c.version).sort((x, y) => x - y)).toEqual([...versions].sort((x, y) => x - y));
    } finally {
      await driver.close();
      await tdb.drop();
    }
  });

  it('holds the overwrites of later iterations while two batches of their keyspace are in flight, and commits them in one transaction (group commit)', async () => {
    const tdb = await createTestDatabase();
    const conn = connect({ url: tdb.url, max: 3 });
    await migrate(conn);
    const driver = new PostgresDriver(conn, { statementConnections: 4, pipelineDepth: DEFAULT_PIPELINE_DEPTH });
    try {
      const a = { namespace: 'ns', owner: 'fn', keyspace: 'a' };
      for (let i = 0; i <= 21; i++) await driver.set(a, `k${i}`, `"v${i}"`);
      const head0 = (await driver.changeWindow(a)).head;
      const held: Array<Promise<{ version: number }>> = [];
      const rest: Array<Promise<{ version: number }>> = [];
      const turn = () => new Promise((r) => setImmediate(r));
      // Another transaction holds k0's and k1's rows, so the two batches with their overwrites
      // stay in flight (waiting for the locks inside Postgres) while twenty more overwrites
      // arrive, one per event-loop iteration.
      await conn.pg!.begin(async (tx) => {
        await tx.unsafe("select 1 from state_entries where namespace = 'ns' and keyspace = 'a' and key in ('k0', 'k1') for update");
        held.push(driver.set(a, 'k0', '"w0"'));
        await turn();
        held.push(driver.set(a, 'k1', '"w1"'));
        await new Promise((r) => setTimeout(r, 100));
        for (let i = 2; i <= 21; i++) {
          rest.push(driver.set(a, `k${i}`, `"w${i}"`));
          await turn();
        }
        await new Promise((r) => setTimeout(r, 100));
        // None of them committed while the two batches wait: they are held, not queued on locks.
        const [row] = await tx.unsafe("select count(*)::int as n from state_entries where namespace = 'ns' and keyspace = 'a' and key like 'k%' and value like $1", ['"w%']);
        expect(row!.n).toBe(0);
      });
      const versions = [...(await Promise.all(held)), ...(await Promise.all(rest))].map((w) => w.version);
      expect(new Set(versions).size).toBe(22);
      for (let i = 0; i <= 21; i++) expect((await driver.get(a, `k${i}`))?.value).toBe(`"w${i}"`);
      // k2..k21 in one transaction (one xmin), apart from k0's and k1's.
      const xmins = await conn.pg!.unsafe("select key, xmin::text as x from state_entries where namespace = 'ns' and keyspace = 'a' and key like 'k%'");
      const byKey = new Map(xmins.map((r) => [r.key as string, r.x as string]));
      expect(new Set(Array.from({ length: 20 }, (_, i) => byKey.get(`k${i + 2}`))).size).toBe(1);
      expect([byKey.get('k0'), byKey.get('k1')]).not.toContain(byKey.get('k2'));
      const page = await driver.changes(a, { since: head0, limit: 100 });
      expect(page.changes.map((c) => c.seq)).toEqual(Array.from({ length: 22 }, (_, i) => head0 + 1 + i));
      expect(page.changes.map((c) => c.key).sort()).toEqual(Array.from({ length: 22 }, (_, i) => `k${i}`).sort());
    } finally {
      await driver.close();
      await tdb.drop();
    }
  });
});

// A recorded read keeps a copy of the value in state_idempotency (migration 0009); it must go with the record.
describe('postgres recorded reads', () => {
  it('store the value in the record row; a claim taking over an expired record clears it, and the sweeper removes it', async () => {
    const clock = { now: 1_700_000_000_000 };
    const tdb = await createTestDatabase();
    const conn = connect({ url: tdb.url, max: 2 });
    await migrate(conn);
    const driver = new PostgresDriver(conn, { now: () => clock.now });
    const row = async (idemKey: string) =>
      (await conn.pg!.unsafe('select result, status, value, version, value_expires_at, bytes from state_idempotency where idem_key = $1', [idemKey]))[0];
    try {
      const s = { namespace: 'ns', owner: 'fn', keyspace: 'a' };
      const { version } = await driver.set(s, 'k', '"secret"', { ttlMs: 5000 });
      await driver.getRecorded(s, 'k', {}, { key: 'inv.1', requestHash: 'get-k', retentionMs: 1000 });
      expect(await row('inv.1')).toMatchObject({ result: 'found', status: 200, value: '"secret"', bytes: 64 + 5 + 8 });
      expect(Number((await row('inv.1'))!.version)).toBe(version);
      expect(Number((await row('inv.1'))!.value_expires_at)).toBe(clock.now + 5000);
      clock.now += 1000;
      await driver.setIdempotent(s, 'k', '1', {}, { maxKeys: 10 }, { key: 'inv.1', requestHash: 'put-k', retentionMs: 1000 });
      expect(await row('inv.1')).toMatchObject({ result: 'ok', value: null, value_expires_at: null, bytes: 64 + 5 });
      await driver.getRecorded(s, 'k', {}, { key: 'inv.2', requestHash: 'get-k', retentionMs: 1000 });
      clock.now += 1000;
      await driver.sweepExpired();
      expect(await conn.pg!.unsafe('select idem_key from state_idempotency')).toEqual([]);
    } finally {
      await driver.close();
      await tdb.drop();
    }
  });
});
