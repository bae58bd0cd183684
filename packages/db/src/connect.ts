import type { PGlite } from '@electric-sql/pglite';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { openPglite } from './pglite-template.ts';
import { sliceStatements } from './pglite-time-slices.ts';
import * as schema from './schema/index.ts';

export type Schema = typeof schema;
/** Either driver's drizzle handle; both speak the same pg-core query builder. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Connection {
  db: Db;
  kind: 'postgres' | 'pglite';
  /** Rows of a raw `db.execute(sql...)` result, whichever driver produced it. */
  rows<T>(result: unknown): T[];
  close(): Promise<void>;
  /** The postgres URL (postgres kind only), e.g. for a dedicated migration connection. */
  url?: string;
  /** The postgres.js client (postgres kind only), for hot single statements as prepared statements. */
  pg?: postgres.Sql;
  /** The PGlite client (pglite kind only). */
  pglite?: PGlite;
}

export interface ConnectOptions {
  /** postgres://… ; falls back to DATABASE_URL; none → embedded PGlite. */
  url?: string;
  /** PGlite data directory; none → in memory. */
  dataDir?: string;
  /** postgres.js pool size (default 10). */
  max?: number;
}

export function connect(opts: ConnectOptions = {}): Connection {
  const url = opts.url ?? process.env.DATABASE_URL;
  if (url) {
    const client = postgres(url, { max: opts.max ?? 10, onnotice: () => {}, prepare: true });
    const db = drizzlePostgres(client, { schema }) as unknown as Db;
    return {
      db,
      kind: 'postgres',
      url,
      pg: client,
      rows: <T>(r: unknown) => (Array.isArray(r) ? (r as T[]) : ((r as { rows: T[] }).rows ?? [])),
      close: () => client.end({ timeout: 5 }),
    };
  }
  // An empty one starts from a migrated template when there is one (pglite-template.ts).
  const client = openPglite(opts.dataDir);
  sliceStatements(client);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  return {
    db,
    kind: 'pglite',
    pglite: client,
    rows: <T>(r: unknown) => (Array.isArray(r) ? (r as T[]) : ((r as { rows: T[] }).rows ?? [])),
    close: () => client.close(),
  };
}
