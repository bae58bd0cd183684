/**
 * When the operator looks again for a package archive that is not in the package store (the
 * ConfigMap `orrery-package-<sha256[:20]>`): 5 s after the first miss, doubling with each further
 * miss, never more than 5 min apart. A Function forgotten with a missing archive so costs the API
 * server a GET every 5 min, not every 5 s. A change of the Function's spec (a new generation:
 * `orrery deploy` again, a new sha256) starts over with a look at once. Pure: the caller keeps one
 * record per Function and archive and drops it once the archive is found.
 */
import { backoffDelay } from '@orrery/spec';

export const ARCHIVE_RECHECK_MIN_MS = 5_000;
export const ARCHIVE_RECHECK_MAX_MS = 5 * 60_000;

/** One Function's missing archive: how often it was missed, and when to look next. */
export interface ArchiveRecheck {
  /** The Function's metadata.generation when it was last missed: another generation looks at once. */
  generation: number;
  /** Looks that found no archive, in a row (1 after the first). */
  misses: number;
  /** When to look again (ms since the epoch). */
  nextAtMs: number;
}

/** Whether to GET the archive now: never looked, the spec changed since, or the wait is over. */
export function archiveCheckDue(prev: ArchiveRecheck | undefined, generation: number, nowMs: number): boolean {
  return prev === undefined || prev.generation !== generation || nowMs >= prev.nextAtMs;
}

/** The archive was looked for at `nowMs` and is still missing: the next record (a new generation counts from 1). */
export function archiveMissed(prev: ArchiveRecheck | undefined, generation: number, nowMs: number): ArchiveRecheck {
  const misses = prev && prev.generation === generation ? prev.misses + 1 : 1;
  return { generation, misses, nextAtMs: nowMs + archiveRecheckDelayMs(misses) };
}

/** The wait after the `misses`-th miss in a row. */
export function archiveRecheckDelayMs(misses: number): number {
  return backoffDelay(misses - 1, { initialMs: ARCHIVE_RECHECK_MIN_MS, maxMs: ARCHIVE_RECHECK_MAX_MS });
}
