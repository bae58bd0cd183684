import { parseDurationMs } from '@orrery/spec';

/**
 * A statesync replica's `backoffSeconds` is its wait before the next cycle: the sync period
 * while all is well, longer after failures. So it is backing off when the wait exceeds the
 * period, or when it waits at all after an error.
 */
export function isBackingOff(rep: { backoffSeconds: number; lastError?: string | null }, periodSeconds: number): boolean {
  return rep.backoffSeconds > periodSeconds || (!!rep.lastError && rep.backoffSeconds > 0);
}

/** `spec.syncPeriod` in seconds (default 10 s, like the schema). */
export function syncPeriodSeconds(syncPeriod: string | undefined): number {
  const ms = parseDurationMs(syncPeriod ?? '10s');
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : 10;
}
