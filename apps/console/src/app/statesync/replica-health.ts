import { parseDurationMs } from '@orrery/spec';
import type { Health } from '../../components/health-badge.tsx';

/**
 * Whether a replica is backing off. statesync reports `backoffSeconds` as the wait before its
 * next cycle, which equals the sync period while all is well; only a longer wait is a backoff.
 */
export function isBackingOff(backoffSeconds: number, syncPeriod: string): boolean {
  const periodS = parseDurationMs(syncPeriod) / 1000;
  return Number.isFinite(periodS) ? backoffSeconds > periodS : backoffSeconds > 0;
}

/** A statesync replica's health: errors degrade it, a backoff without error means it is recovering. */
export function replicaHealth(r: { lastError?: string; backoffSeconds: number; lastSuccessfulCycle?: string }, syncPeriod: string): Health {
  if (r.lastError) return 'Degraded';
  if (isBackingOff(r.backoffSeconds, syncPeriod)) return 'Progressing';
  if (!r.lastSuccessfulCycle) return 'Unknown';
  return 'Healthy';
}

const RANK: Record<Health, number> = { Healthy: 0, Unknown: 1, Progressing: 2, Degraded: 3 };

/** The worst health of a replica's syncables: one failing table makes the replica Degraded. */
export function worstHealth(healths: Health[]): Health {
  return healths.reduce<Health>((w, h) => (RANK[h] > RANK[w] ? h : w), 'Healthy');
}
