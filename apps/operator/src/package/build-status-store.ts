/**
 * Where a Function's `status.build` is kept: one seam, like trigger/trigger-status-store.ts.
 * The builds are its only writer; the Function reconciler never writes the field (locally its
 * status write keeps the stored one: local-function-backend.ts). Every write is conditional on
 * the resourceVersion it read, so a status computed from an older copy never rolls a build back.
 */
import type { BuildStatus, OrreryFunction } from '@orrery/spec';

export type BuildStatusWrite = 'written' | 'conflict' | 'gone';

export interface BuildStatusStore {
  /** The Function as stored now (never a cache); undefined when gone. */
  read(namespace: string, name: string): Promise<OrreryFunction | undefined>;
  /** Replaces `status.build` (undefined removes it) if the Function still has `fn.metadata.resourceVersion`. */
  write(fn: OrreryFunction, build: BuildStatus | undefined): Promise<BuildStatusWrite>;
}

/**
 * Read-modify-write of `status.build`: `change` gets the stored Function and returns the new
 * build status, or `unchanged`; a conflict reads again, up to `attempts` times.
 */
export async function updateBuildStatus(
  store: BuildStatusStore,
  namespace: string,
  name: string,
  change: (fn: OrreryFunction) => BuildStatus | undefined | 'unchanged',
  attempts = 5,
): Promise<BuildStatusWrite | 'unchanged'> {
  for (let attempt = 1; ; attempt++) {
    const fn = await store.read(namespace, name);
    if (!fn) return 'gone';
    const next = change(fn);
    if (next === 'unchanged') return 'unchanged';
    const outcome = await store.write(fn, next);
    if (outcome !== 'conflict' || attempt >= attempts) return outcome;
  }
}
