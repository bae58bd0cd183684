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
  /** Postgres connections in all (default 10), opened as needed; see `splitPool`. */
  poolSize?: number;
  /** Statements one statement connection takes in flight before the next is used (see LifoStatementPool). */
  pipelineDepth?: number;
  now?: () => number;
}

export const DEFAULT_PIPELINE_DEPTH = 4;

/**
 * Splits the connection budget: about a third (at least 2) for transactions (key creation,
 * delete, sweeps: postgres.js's own pool), the rest for single statements on the LIFO pool
 * (reads and in-place updates, the hot path). Below 4 connections everything shares one pool.
 */
export function splitPool(total: number): { transactions: number; statements: number } {
  if (total < 4) return { transactions: total, statements: 0 };
  const transactions = Math.max(2, Math.round(total / 3));
  return { transactions, statements: total - transactions };
}

/** Opens a driver; the postgres one applies migrations first. */
export async function openDriver(opts: OpenDriverOptions): Promise<StateDriver> {
  if (opts.driver === 'memory') return new MemoryDriver({ now: opts.now });
  const pool = splitPool(opts.poolSize ?? 10);
  const conn = connect({ url: opts.databaseUrl, dataDir: opts.dataDir, max: pool.transactions });
  try {
    await migrate(conn);
  } catch (err) {
    await conn.close();
    throw err;
  }
  return new PostgresDriver(conn, { now: opts.now, statementConnections: pool.statements, pipelineDepth: opts.pipelineDepth ?? DEFAULT_PIPELINE_DEPTH });
}
