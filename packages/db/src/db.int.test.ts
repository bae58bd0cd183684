import { sql } from 'drizzle-orm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from './connect.ts';
import { migrate } from './migrate.ts';
import { createTestDatabase } from './test-database.ts';
import { stateEntries } from './schema/index.ts';

async function roundTrip(conn: Connection) {
  await migrate(conn);
  await migrate(conn); // idempotent
  await conn.db.insert(stateEntries).values({ namespace: 'n', keyspace: 'k', key: 'b', value: '1', bytes: 1, version: 1 });
  await conn.db.insert(stateEntries).values({ namespace: 'n', keyspace: 'k', key: 'a', value: '2', bytes: 1, version: 2 });
  const rows = conn.rows<{ key: string }>(await conn.db.execute(sql`select key from state_entries order by key`));
  expect(rows.map((r) => r.key)).toEqual(['a', 'b']);
  const seq = conn.rows<{ v: string }>(await conn.db.execute(sql`select nextval('state_version_seq')::text as v`));
  expect(Number(seq[0]!.v)).toBeGreaterThan(0);
}

describe('db', () => {
  it('migrates embedded PGlite in memory', { timeout: 60_000 }, async () => {
    const conn = connect({ url: '' });
    expect(conn.kind).toBe('pglite');
    try {
      await roundTrip(conn);
    } finally {
      await conn.close();
    }
  });

  it('keeps PGlite data in a data directory across reopen', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-pglite-'));
    try {
      const a = connect({ url: '', dataDir: dir });
      await migrate(a);
      await a.db.insert(stateEntries).values({ namespace: 'n', keyspace: 'k', key: 'kept', value: '1', bytes: 1, version: 1 });
      await a.close();
      const b = connect({ url: '', dataDir: dir });
      await migrate(b);
      const rows = b.rows<{ key: string }>(await b.db.execute(sql`select key from state_entries`));
      expect(rows.map((r) => r.key)).toEqual(['kept']);
      await b.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('postgres', () => {
    let tdb: Awaited<ReturnType<typeof createTestDatabase>>;
    beforeAll(async () => { tdb = await createTestDatabase(); });
    afterAll(async () => { await tdb?.drop(); });

    it('migrates a real Postgres, also when two processes race', { timeout: 60_000 }, async () => {
      const a = connect({ url: tdb.url });
      const b = connect({ url: tdb.url });
      expect(a.kind).toBe('postgres');
      try {
        await Promise.all([migrate(a), migrate(b)]);
        await roundTrip(a);
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
