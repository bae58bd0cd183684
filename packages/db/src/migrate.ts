import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import type { PgliteDatabase } from 'drizzle-orm/pglite';
import postgres from 'postgres';
import type { Connection } from './connect.ts';
import { keepAsTemplate } from './pglite-template.ts';

export const migrationsFolder = join(dirname(fileURLToPath(import.meta.url)), '..', 'drizzle');

// Arbitrary constant: every Orrery process migrating one database takes the same advisory lock.
const MIGRATION_LOCK = 0x0_72_72_79;

/**
 * Applies the committed drizzle-kit migrations. On Postgres several processes may start at once
 * (statesvc replicas, the operator): a session advisory lock on one dedicated connection
 * serialises them so none sees a half-created schema.
 */
export async function migrate(conn: Connection): Promise<void> {
  if (conn.kind === 'pglite') {
    await migratePglite(conn.db as unknown as PgliteDatabase<Record<string, unknown>>, { migrationsFolder });
    if (conn.pglite) await keepAsTemplate(conn.pglite);
    return;
  }
  const client = postgres(conn.url!, { max: 1, onnotice: () => {} });
  try {
    await client`select pg_advisory_lock(${MIGRATION_LOCK})`;
    await migratePostgres(drizzlePostgres(client), { migrationsFolder });
    await client`select pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    await client.end({ timeout: 5 });
  }
}
