import { connect, migrate } from '@orrery/db';
import { MemoryDriver } from './memory-driver.ts';
import { PostgresDriver } from './postgres-driver.ts';
import type { StateDriver } from './types.ts';

export interface OpenDriverOptions {
  driver: 'memory' | 'postgres';
  /** postgres driver: a postgres:// URL, else DATABASE_URL, else embedded PGlite. */
  databaseUrl?: string;
  /** PGlite data directory when no URL is given (memory when none). */
  dataDir?: string;
  /** postgres.js pool size. */
  poolSize?: number;
  now?: () => number;
}

/** Opens a driver; the postgres one applies migrations first. */
export async function openDriver(opts: OpenDriverOptions): Promise<StateDriver> {
  if (opts.driver === 'memory') return new MemoryDriver({ now: opts.now });
  const conn = connect({ url: opts.databaseUrl, dataDir: opts.dataDir, max: opts.poolSize });
  try {
    await migrate(conn);
  } catch (err) {
    await conn.close();
    throw err;
  }
  return new PostgresDriver(conn, { now: opts.now });
}
