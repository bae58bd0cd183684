import { isDeepStrictEqual } from 'node:util';
import {
  FUNCTION_LABEL,
  GROUP_VERSION,
  type OrreryFunction,
  type Revision,
  type RevisionInput,
  revisionName,
  revisionNumber,
} from '@orrery/spec';

/** Revisions of one function, oldest first. */
export function sortRevisions(revisions: readonly Revision[]): Revision[] {
  return [...revisions].sort((a, b) => revisionNumber(a.metadata.name) - revisionNumber(b.metadata.name));
}

/**
 * The Revision to create for the Function's current template, or undefined when the newest
 * revision already snapshots it. Revisions are numbered after the highest existing one, so a
 * deleted revision's name is never reused.
 */
export function revisionToCreate(fn: OrreryFunction, revisions: readonly Revision[]): RevisionInput | undefined {
  const sorted = sortRevisions(revisions);
  const newest = sorted.at(-1);
  if (newest && isDeepStrictEqual(newest.spec.template, fn.spec.template)) return undefined;
  const next = newest ? revisionNumber(newest.metadata.name) + 1 : 1;
  return {
    apiVersion: GROUP_VERSION,
    kind: 'Revision',
    metadata: {
      name: revisionName(fn.metadata.name, next),
      namespace: fn.metadata.namespace,
      labels: { [FUNCTION_LABEL]: fn.metadata.name, 'orrery.dev/function-generation': String(fn.metadata.generation ?? 1) },
      ownerReferences: fn.metadata.uid
        ? [{ apiVersion: GROUP_VERSION, kind: 'Function', name: fn.metadata.name, uid: fn.metadata.uid, controller: true, blockOwnerDeletion: true }]
        : undefined,
    },
    spec: { function: fn.metadata.name, template: structuredClone(fn.spec.template) },
  };
}
