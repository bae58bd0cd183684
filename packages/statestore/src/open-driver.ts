import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { connect, migrate } from '@orrery/db';
import type { StateDriverName } from '@orrery/spec';
import { lockDataDir } from './data-dir-lock.ts';
import { MemoryDriver } from './memory-driver.ts';
import { MEMORY_JOURNAL_FILE } from './memory-journal.ts';
import { PostgresDriver } from './postgres-driver.ts';
import type { StateDriver } from './types.ts';

export interface OpenDriverOptions {
  /** One of STATE_DRIVERS (`@orrery/spec`), the names `spec.state.backend` may use. */
  driver: StateDriverName;
  /** postgres driver: a postgres:// URL, else DATABASE_URL, else embedded PGlite. */
  databaseUrl?: string;
  /**
   * memory driver: keep the data in `<dataDir>/memory-state.journal` (created mode 0700/0600) and
   * hold `<dataDir>/lock` while open; without it the data lives only in the process.
   * postgres driver: the PGlite data directory when no URL is given (in memory when none).
   */
  dataDir?: string;
  /** memory driver with a data dir: fdatasync interval in ms (default 1000; 0 = leave it to the OS). */
  fsyncIntervalMs?: number;
  /** Progress lines (what the journal replay found). */
  log?: (msg: string) => void;
  /** Postgres connections in all (default 10), opened as needed; see `splitPool`. */
  poolSize?: number;
  /** Statements one statement connection takes in flight before the next is used (see LifoStatementPool). */
  pipelineDepth?: number;
  /** postgres driver: concurrent reads of one keyspace share one statement (ReadBatcher; default on). */
  batchReads?: boolean;
  /** postgres driver: concurrent overwrites of one keyspace share one transaction (WriteBatcher; default on). */
  batchWrites?: boolean;
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
  if (opts.driver === 'memory') return opts.dataDir === undefined ? new MemoryDriver({ now: opts.now }) : openMemoryDataDir(opts.dataDir, opts);
  const pool = splitPool(opts.poolSize ?? 10);
  const conn = connect({ url: opts.databaseUrl, dataDir: opts.dataDir, max: pool.transactions });
  try {
    await migrate(conn);
  } catch (err) {
    await conn.close();
    throw err;
  }
  return new PostgresDriver(conn, { now: opts.now, statementConnections: pool.statements, pipelineDepth: opts.pipelineDepth ?? DEFAULT_PIPELINE_DEPTH, batchReads: opts.batchReads, batchWrites: opts.batchWrites });
}

/** The memory driver journaled under `dataDir`, holding the directory's lock until closed. */
function openMemoryDataDir(dataDir: string, opts: OpenDriverOptions): MemoryDriver {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const lock = lockDataDir(dataDir);
  try {
    const path = join(dataDir, MEMORY_JOURNAL_FILE);
    const driver = new MemoryDriver({ now: opts.now, journal: { path, fsyncIntervalMs: opts.fsyncIntervalMs, log: opts.log }, onClose: () => lock.release() });
    const r = driver.journalReport!;
    opts.log?.(
      `memory driver: ${path}: ${r.rows} live key(s) from ${r.records} record(s), next version ${r.nextVersion}` +
        (r.tornBytes > 0 ? `; ignored an incomplete final record of ${r.tornBytes} bytes (a write cut short by a crash, never acknowledged)` : ''),
    );
    return driver;
  } catch (err) {
    lock.release();
    throw err;
  }
}
