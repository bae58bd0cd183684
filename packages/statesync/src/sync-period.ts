import { parseDurationMs } from '@orrery/spec';

/** Replaces the built-in default period (AIBrix: `AIBRIX_REDISSYNC_SYNC_PERIOD`). */
export const SYNC_PERIOD_ENV = 'ORRERY_STATESYNC_SYNC_PERIOD';

export type SyncPeriodSource = 'option' | 'env' | 'default';

export interface ResolvedSyncPeriod {
  ms: number;
  source: SyncPeriodSource;
  /** Values that were given but are not valid periods (skipped; the caller warns). */
  rejected: string[];
  /** The variable's value when it is set but an explicit period wins over it (the caller may say so). */
  envIgnored?: string;
}

/** "500ms", "30s", "1m30s" or plain milliseconds; NaN when it is none of them. */
function parseEnvPeriod(raw: string): number {
  return /^\d+$/.test(raw) ? Number(raw) : parseDurationMs(raw);
}

const isPeriod = (ms: number | undefined): ms is number => ms !== undefined && Number.isFinite(ms) && ms > 0;

/**
 * The seed's rule (AIBrix redissync.go): the environment variable sets the *default* period, and a
 * period passed in code (`WithSyncPeriod`; here `syncPeriodMs`, which the router fills from
 * `--sync-period-ms` or the StateSync's `spec.syncPeriod`) replaces it. So: a valid explicit period,
 * else a valid variable, else the built-in default. Invalid values are skipped and reported, never thrown.
 */
export function resolveSyncPeriod(explicitMs: number | undefined, envValue: string | undefined, defaultMs: number): ResolvedSyncPeriod {
  const raw = envValue?.trim() ?? '';
  const rejected: string[] = [];
  if (isPeriod(explicitMs)) return raw === '' ? { ms: explicitMs, source: 'option', rejected } : { ms: explicitMs, source: 'option', rejected, envIgnored: raw };
  if (explicitMs !== undefined) rejected.push(`syncPeriodMs ${String(explicitMs)}`);
  if (raw === '') return { ms: defaultMs, source: 'default', rejected };
  const fromEnv = parseEnvPeriod(raw);
  if (isPeriod(fromEnv)) return { ms: fromEnv, source: 'env', rejected };
  rejected.push(`${SYNC_PERIOD_ENV}=${JSON.stringify(envValue)}`);
  return { ms: defaultMs, source: 'default', rejected };
}
