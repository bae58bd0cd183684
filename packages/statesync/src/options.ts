import type { Registry } from 'prom-client';
import { keyPrefixProblem } from './keys.ts';
import { resolveSyncPeriod, SYNC_PERIOD_ENV } from './sync-period.ts';

/** The seed's defaults (AIBrix redissync.go constants), with `orrery` as the key prefix. */
export const STATESYNC_DEFAULTS = {
  syncPeriodMs: 10_000,
  recordTtlMs: 120_000,
  keyPrefix: 'orrery',
  opTimeoutMs: 30_000,
  stopWaitTimeoutMs: 90_000,
  setexChunkSize: 25,
  mgetBatchSize: 200,
  scanCount: 500,
  maxBackoffMs: 60_000,
  /** Full-snapshot warning thresholds. */
  warnSnapshotEntries: 10_000,
  warnAverageEntryBytes: 512 * 1024,
} as const;

export { SYNC_PERIOD_ENV };

export interface StateSyncLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** Injected so jitter, backoff and timeouts can be driven by fake timers in tests. */
export interface StateSyncTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export interface StateSyncOptions {
  /** Explicit period; when absent, `ORRERY_STATESYNC_SYNC_PERIOD` or 10 s (see resolveSyncPeriod). */
  syncPeriodMs?: number;
  /** Per-record TTL for every SETEX; ≤ 0 is ignored (default 2 min). Rounded up to whole seconds. */
  recordTtlMs?: number;
  keyPrefix?: string;
  /** Deadline of each operation: every syncable's pull, and its push, has its own (the seed's per-operation context). */
  opTimeoutMs?: number;
  /** How long `stop()` waits for an in-flight cycle. */
  stopWaitTimeoutMs?: number;
  setexChunkSize?: number;
  mgetBatchSize?: number;
  scanCount?: number;
  /** Backoff cap (the seed: 1 minute); tests shorten it. */
  maxBackoffMs?: number;
  warnSnapshotEntries?: number;
  warnAverageEntryBytes?: number;
  /** prom-client registry for the metrics; a fresh one by default so instances never collide. */
  registry?: Registry;
  logger?: StateSyncLogger;
  now?: () => number;
  random?: () => number;
  timers?: StateSyncTimers;
  /** Environment to read `ORRERY_STATESYNC_SYNC_PERIOD` (the default period) from (default `process.env`). */
  env?: Record<string, string | undefined>;
}

export interface ResolvedStateSyncOptions {
  syncPeriodMs: number;
  recordTtlSeconds: number;
  keyPrefix: string;
  opTimeoutMs: number;
  stopWaitTimeoutMs: number;
  setexChunkSize: number;
  mgetBatchSize: number;
  scanCount: number;
  maxBackoffMs: number;
  warnSnapshotEntries: number;
  warnAverageEntryBytes: number;
}

/**
 * Fills defaults. `ORRERY_STATESYNC_SYNC_PERIOD` ("500ms", "10s", "1m" or plain milliseconds) replaces
 * the default period only; an explicit `syncPeriodMs` wins over it, as in the seed. Invalid values are
 * ignored with a warning and fall back to the default, never throw.
 */
export function resolveOptions(options: StateSyncOptions, logger: StateSyncLogger): ResolvedStateSyncOptions {
  const d = STATESYNC_DEFAULTS;
  const positive = (name: keyof typeof d, value: number | undefined, integer = false): number => {
    if (value === undefined) return d[name] as number;
    if (Number.isFinite(value) && value > 0 && (!integer || Number.isInteger(value))) return value;
    logger.warn(`statesync: ignoring invalid ${name}`, { value });
    return d[name] as number;
  };
  const env = options.env ?? process.env;
  const period = resolveSyncPeriod(options.syncPeriodMs, env[SYNC_PERIOD_ENV], d.syncPeriodMs);
  for (const value of period.rejected) logger.warn(`statesync: ignoring invalid ${value}`);
  if (period.envIgnored !== undefined) {
    logger.info(`statesync: ${SYNC_PERIOD_ENV} (${period.envIgnored}) sets the default period only; the given period ${period.ms} ms applies`);
  }
  const recordTtlMs =
    options.recordTtlMs !== undefined && Number.isFinite(options.recordTtlMs) && options.recordTtlMs > 0
      ? options.recordTtlMs
      : d.recordTtlMs;
  let keyPrefix = options.keyPrefix ?? d.keyPrefix;
  const prefixProblem = keyPrefixProblem(keyPrefix);
  if (prefixProblem) {
    logger.warn(`statesync: ${prefixProblem}; using "${d.keyPrefix}"`, { keyPrefix });
    keyPrefix = d.keyPrefix;
  }
  return {
    syncPeriodMs: period.ms,
    recordTtlSeconds: Math.max(1, Math.ceil(recordTtlMs / 1000)),
    keyPrefix,
    opTimeoutMs: positive('opTimeoutMs', options.opTimeoutMs),
    stopWaitTimeoutMs: positive('stopWaitTimeoutMs', options.stopWaitTimeoutMs),
    setexChunkSize: positive('setexChunkSize', options.setexChunkSize, true),
    mgetBatchSize: positive('mgetBatchSize', options.mgetBatchSize, true),
    scanCount: positive('scanCount', options.scanCount, true),
    maxBackoffMs: positive('maxBackoffMs', options.maxBackoffMs),
    warnSnapshotEntries: positive('warnSnapshotEntries', options.warnSnapshotEntries, true),
    warnAverageEntryBytes: positive('warnAverageEntryBytes', options.warnAverageEntryBytes),
  };
}

export const consoleLogger: StateSyncLogger = {
  info: (message, fields) => console.info(message, fields ?? ''),
  warn: (message, fields) => console.warn(message, fields ?? ''),
  error: (message, fields) => console.error(message, fields ?? ''),
};
