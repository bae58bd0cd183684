/**
 * The kubelet's restart back-off for crashed containers (its flowcontrol.Backoff keyed by
 * container): the first crash restarts at once; a crash while a back-off is recorded waits it
 * out (10 s, doubling up to 5 min), and a container that ran 10 minutes (twice the cap) since the
 * last back-off starts over.
 */
import { backoffDelay } from '@orrery/spec';

export const INITIAL_BACKOFF_MS = 10_000;
export const MAX_BACKOFF_MS = 300_000;

export interface BackoffEntry {
  /** How many back-offs this entry has counted: the next wait is backoffDelay(backoffs). */
  backoffs: number;
  /** When the back-off was last advanced (the previous crash's finish time). */
  lastUpdate: number;
}

export interface RestartDecision {
  /** How long to wait before starting the container again (0: now). */
  delayMs: number;
  entry: BackoffEntry;
}

/** Decides when a container that finished at `finishedAt` may start again, and the new entry. */
export function nextRestart(entry: BackoffEntry | undefined, finishedAt: number, o = { initialMs: INITIAL_BACKOFF_MS, maxMs: MAX_BACKOFF_MS }): RestartDecision {
  const expired = !entry || finishedAt - entry.lastUpdate > 2 * o.maxMs;
  if (expired) return { delayMs: 0, entry: { backoffs: 0, lastUpdate: finishedAt } };
  return { delayMs: backoffDelay(entry.backoffs, o), entry: { backoffs: entry.backoffs + 1, lastUpdate: finishedAt } };
}
