import type { OrreryFunction, Revision } from '@orrery/spec';
import { sortRevisions } from '../reconcile/function-revisions.ts';
import { routableRevisions } from '../reconcile/function-status.ts';

/**
 * Whether a revision's workers run, on either backend: those traffic reaches (`routable`), and
 * the newest, which runs before traffic moves to it so it can become ready. Revisions nobody can
 * reach run nothing.
 */
export function revisionWanted(fn: OrreryFunction, revisions: readonly Revision[], name: string): { routable: boolean; wanted: boolean } {
  const routable = routableRevisions(fn.status).has(name);
  const newest = sortRevisions(revisions).at(-1)?.metadata.name;
  return { routable, wanted: routable || newest === name };
}
