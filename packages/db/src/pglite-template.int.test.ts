import { cpSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from './connect.ts';
import { migrate, migrationsFolder } from './migrate.ts';
import { EMBEDDED_SHARED_BUFFERS } from './pglite-memory.ts';
import { templateFile } from './pglite-template.ts';

// A fresh embedded database starts from a migrated copy; it must be the same database.
describe('the PGlite template', () => {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-pglite-template-'));
  const saved = process.env.ORRERY_PGLITE_TEMPLATE_DIR;
  beforeAll(() => {
    process.env.ORRERY_PGLITE_TEMPLATE_DIR = join(dir, 'cache');
  });
  afterAll(() => {
    if (saved === undefined) delete process.env.ORRERY_PGLITE_TEMPLATE_DIR;
    else process.env.ORRERY_PGLITE_TEMPLATE_DIR = saved;
    rmSync(dir, { recursive: true, force: true });
  });

  const applied = async (conn: ReturnType<typeof connect>) => (await conn.pglite!.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0]!.n;
  const migrations = () => readdirSync(migrationsFolder).filter((f) => f.endsWith('.sql')).length;
  // Every way of opening one runs with the embedded sizing, not initdb's 128MB (pglite-memory.ts).
  const sharedBuffers = async (conn: ReturnType<typeof connect>) => (await conn.pglite!.query<{ shared_buffers: string }>('show shared_buffers')).rows[0]!.shared_buffers;

  it('is written by the first fresh database that migrates, and a later one starts from it already migrated', { timeout: 120_000 }, async () => {
    expect(readdirSync(dir)).toEqual([]);
    const first = connect({ url: '' });
    await migrate(first);
    expect(await sharedBuffers(first)).toBe(EMBEDDED_SHARED_BUFFERS);
    await first.pglite!.query(`create table after_migrations (x int)`);
    await first.close();
    expect(readdirSync(join(dir, 'cache'))).toEqual([templateFile()!.split('/').pop()]);

    // In memory and on an empty folder: every migration is there before migrate() runs, and
    // nothing written after the migrations came along.
    for (const dataDir of [undefined, join(dir, 'data')]) {
      const next = connect({ url: '', dataDir });
      expect(await applied(next)).toBe(migrations());
      expect(await sharedBuffers(next)).toBe(EMBEDDED_SHARED_BUFFERS);
      await migrate(next);
      expect(await applied(next)).toBe(migrations());
      expect((await next.pglite!.query(`select to_regclass('after_migrations') as t`)).rows).toEqual([{ t: null }]);
      await next.pglite!.query(`create table mine (x int)`);
      await next.close();
    }
    // A folder that holds a database is opened as it is, never replaced by the template.
    const reopened = connect({ url: '', dataDir: join(dir, 'data') });
    expect((await reopened.pglite!.query(`select to_regclass('mine')::text as t`)).rows).toEqual([{ t: 'mine' }]);
    expect(await sharedBuffers(reopened)).toBe(EMBEDDED_SHARED_BUFFERS);
    await reopened.close();
  });

  it('is keyed by every migration file: another migration set has another template', () => {
    const copy = join(dir, 'drizzle-copy');
    cpSync(migrationsFolder, copy, { recursive: true });
    expect(templateFile(copy)).toBe(templateFile());
    writeFileSync(join(copy, '9999_extra.sql'), 'select 1;');
    expect(templateFile(copy)).not.toBe(templateFile());
  });

  it('ORRERY_PGLITE_TEMPLATE=off neither loads nor writes one', { timeout: 120_000 }, async () => {
    rmSync(join(dir, 'cache'), { recursive: true, force: true });
    process.env.ORRERY_PGLITE_TEMPLATE = 'off';
    try {
      const conn = connect({ url: '' });
      expect((await conn.pglite!.query(`select to_regclass('drizzle.__drizzle_migrations') as t`)).rows).toEqual([{ t: null }]);
      await migrate(conn);
      expect(await sharedBuffers(conn)).toBe(EMBEDDED_SHARED_BUFFERS);
      await conn.close();
      expect(readdirSync(dir)).not.toContain('cache');
    } finally {
      delete process.env.ORRERY_PGLITE_TEMPLATE;
    }
  });
});
