/**
 * Where a deploy stands, read from the stored Function and its Revisions (what the operator
 * wrote): the revision made for the applied template, its workers, and whether it serves.
 * Pure, so `orrery deploy` only polls and prints the line for each new state.
 */
import { isDeepStrictEqual } from 'node:util';
import { revisionNumber, type Condition, type OrreryFunction, type Revision } from '@orrery/spec';

export type DeployProgress =
  /** The operator has not made a revision for this template yet. */
  | { phase: 'pending'; message: string }
  | { phase: 'created'; revision: string }
  | { phase: 'starting'; revision: string; message: string }
  /** Terminal, exit 0: the revision is ready and the function's routes know it. */
  | { phase: 'ready'; revision: string; url?: string; servedPercent: number; tags: string[] }
  /** Terminal, exit 0: made, but spec.traffic sends it nothing, so no worker starts for it. */
  | { phase: 'unrouted'; revision: string; message: string }
  /** Terminal, exit 1. */
  | { phase: 'failed'; revision?: string; reason: string; message: string };

const ready = (conditions: readonly Condition[] | undefined) => conditions?.find((c) => c.type === 'Ready');

export function deployProgress(fn: OrreryFunction, revisions: readonly Revision[]): DeployProgress {
  const observed = (fn.status?.observedGeneration ?? 0) >= (fn.metadata.generation ?? 1);
  const mine = revisions
    .filter((r) => r.spec.function === fn.metadata.name && isDeepStrictEqual(r.spec.template, fn.spec.template))
    .sort((a, b) => revisionNumber(b.metadata.name) - revisionNumber(a.metadata.name))[0];
  if (!mine) {
    const config = fn.status?.conditions?.find((c) => c.type === 'ConfigurationsReady');
    if (observed && config?.status === 'False') return { phase: 'failed', reason: config.reason ?? 'NotRolledOut', message: config.message ?? 'the operator did not roll out spec.template' };
    return { phase: 'pending', message: observed ? 'waiting for the operator to create the revision' : 'waiting for the operator to see the change' };
  }
  const revision = mine.metadata.name;
  const cond = ready(mine.status?.conditions);
  if (!cond) return { phase: 'created', revision };
  if (cond.status === 'False') return { phase: 'failed', revision, reason: cond.reason ?? 'RevisionFailed', message: cond.message ?? '' };
  if (cond.status === 'Unknown') {
    const traffic = fn.spec.traffic;
    const routed = traffic.length === 0 || traffic.some((t) => t.latestRevision || t.revisionName === revision);
    if (cond.reason === 'Inactive' && !routed) {
      return { phase: 'unrouted', revision, message: `spec.traffic sends it nothing; route to it with: orrery traffic set ${fn.metadata.namespace}/${fn.metadata.name} ${revision}=100` };
    }
    return { phase: 'starting', revision, message: `${mine.status?.readyWorkers ?? 0}/${mine.status?.desiredScale ?? 0} workers ready${cond.message ? ` (${cond.message})` : ''}` };
  }
  // Ready: done once the Function's status has caught up (its routes resolve to this revision).
  const latestReady = revisionNumber(fn.status?.latestReadyRevision ?? '');
  if (!observed || !(latestReady >= revisionNumber(revision))) {
    return { phase: 'starting', revision, message: 'workers ready; updating routes' };
  }
  const targets = (fn.status?.traffic ?? []).filter((t) => t.revisionName === revision);
  return {
    phase: 'ready',
    revision,
    ...(fn.status?.url ? { url: fn.status.url } : {}),
    servedPercent: targets.reduce((sum, t) => sum + t.percent, 0),
    tags: targets.flatMap((t) => (t.tag ? [t.tag] : [])),
  };
}

/** The line printed when a deploy reaches `p` (one per change of state). */
export function progressLine(p: DeployProgress): string {
  switch (p.phase) {
    case 'pending':
      return p.message;
    case 'created':
      return `revision ${p.revision} created`;
    case 'starting':
      return `revision ${p.revision}: ${p.message}`;
    case 'ready':
      return `revision ${p.revision} ready, serving ${p.servedPercent}% of traffic${p.tags.length ? ` (tags: ${p.tags.join(', ')})` : ''}`;
    case 'unrouted':
      return `revision ${p.revision} created but not routed: ${p.message}`;
    case 'failed':
      return `${p.revision ? `revision ${p.revision} failed` : 'deploy failed'}: ${p.reason}${p.message ? ` — ${p.message}` : ''}`;
  }
}
