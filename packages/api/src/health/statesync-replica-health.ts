/**
 * A statesync replica's health, per syncable row of StateSync status.replicas. Pure: the
 * statesync.list and overview.summary procedures and the alert rules call these; the console
 * shows what they return.
 */
import { parseDurationMs } from '@orrery/spec';
import type { HealthVerdict } from './health-from-conditions.ts';

export interface ReplicaRow {
  backoffSeconds: number;
  lastError?: string | null;
  lastSuccessfulCycle?: string | null;
}

/**
 * A replica's `backoffSeconds` is its wait before the next cycle: the sync period while all is
 * well, doubled after each failed cycle (packages/statesync/src/schedule.ts). So it is backing
 * off exactly when the wait exceeds the period, statesync's own test. `lastError` does not count:
 * statesync keeps the last error after later cycles succeed, so a recovered replica still has one.
 */
export function isBackingOff(rep: Pick<ReplicaRow, 'backoffSeconds'>, periodSeconds: number): boolean {
  return rep.backoffSeconds > periodSeconds;
}

/** `spec.syncPeriod` in seconds (default 10 s, like the schema). */
export function syncPeriodSeconds(syncPeriod: string | undefined): number {
  const ms = parseDurationMs(syncPeriod ?? '10s');
  return Number.isFinite(ms) && ms > 0 ? ms / 1000 : 10;
}

/**
 * One row: an error → Degraded (the operator's StateSync condition says the same); backing off
 * without one → Progressing (it retries by itself); no successful cycle yet → Unknown; else Healthy.
 */
export function replicaHealth(rep: ReplicaRow, periodSeconds: number): HealthVerdict {
  if (rep.lastError) return { health: 'Degraded', message: rep.lastError };
  if (isBackingOff(rep, periodSeconds)) return { health: 'Progressing', message: `backing off: next cycle in ${rep.backoffSeconds} s` };
  if (!rep.lastSuccessfulCycle) return { health: 'Unknown', message: 'no successful cycle yet' };
  return { health: 'Healthy', message: `last cycle ${rep.lastSuccessfulCycle}` };
}
