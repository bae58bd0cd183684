import { type FunctionStatus, type OrreryFunction, type Revision, effectiveTraffic } from '@orrery/spec';
import { conditionTrue, setCondition } from './conditions.ts';
import { sortRevisions } from './function-revisions.ts';
import { withProgress } from './kstatus-conditions.ts';

export interface FunctionStatusInput {
  fn: OrreryFunction;
  revisions: readonly Revision[];
  /** Base URL under which the router serves functions, e.g. http://127.0.0.1:8080. */
  routerUrl?: string;
  now: Date;
  /** A rule that reads another object forbids rolling out spec.template (crossObjectProblem). */
  blocked?: { reason: string; message: string };
}

/**
 * Knative-style status for a Function: latest created / ready revision, traffic resolved to
 * revision names (latestRevision → latest ready), per-revision scale, and the conditions
 * ConfigurationsReady, RoutesReady and Ready, plus kstatus's Reconciling / Stalled while not Ready.
 */
export function functionStatus({ fn, revisions, routerUrl, now, blocked }: FunctionStatusInput): FunctionStatus {
  const sorted = sortRevisions(revisions);
  const byName = new Map(sorted.map((r) => [r.metadata.name, r]));
  const latestCreated = sorted.at(-1);
  const prev = fn.status;
  const latestReady = latestReadyRevision(sorted, prev?.latestReadyRevision);

  const traffic: NonNullable<FunctionStatus['traffic']> = [];
  const unresolved: string[] = [];
  for (const t of effectiveTraffic(fn.spec)) {
    const name = t.latestRevision ? latestReady?.metadata.name : t.revisionName;
    if (!name) {
      unresolved.push('latestRevision (no revision is ready yet)');
      continue;
    }
    const rev = byName.get(name);
    if (!rev) unresolved.push(`${name} (no such revision)`);
    else if (!conditionTrue(rev.status?.conditions, 'Ready')) unresolved.push(`${name} (not ready)`);
    traffic.push({ revisionName: name, percent: t.percent, ...(t.tag ? { tag: t.tag } : {}), ...(t.latestRevision ? { latestRevision: true } : {}) });
  }

  let conditions = prev?.conditions;
  const latestOk = latestCreated && conditionTrue(latestCreated.status?.conditions, 'Ready');
  const latestFailure = latestCreated?.status?.conditions?.find((c) => c.type === 'Ready' && c.status === 'False');
  conditions = setCondition(
    conditions,
    blocked
      ? { type: 'ConfigurationsReady', status: 'False', reason: blocked.reason, message: `spec.template is not rolled out: ${blocked.message}` }
      : latestOk
      ? { type: 'ConfigurationsReady', status: 'True', reason: 'RevisionReady', message: `${latestCreated.metadata.name} is ready` }
      : latestFailure
        ? { type: 'ConfigurationsReady', status: 'False', reason: latestFailure.reason ?? 'RevisionFailed', message: `${latestCreated!.metadata.name}: ${latestFailure.message ?? ''}` }
        : { type: 'ConfigurationsReady', status: 'Unknown', reason: 'RevisionPending', message: latestCreated ? `waiting for ${latestCreated.metadata.name} to become ready` : 'creating the first revision' },
    now,
  );
  conditions = setCondition(
    conditions,
    unresolved.length === 0
      ? { type: 'RoutesReady', status: 'True', reason: 'TrafficResolved', message: 'every traffic target is ready' }
      : { type: 'RoutesReady', status: 'Unknown', reason: 'TrafficPending', message: `waiting for ${unresolved.join(', ')}` },
    now,
  );
  const ready = conditionTrue(conditions, 'ConfigurationsReady') && conditionTrue(conditions, 'RoutesReady');
  const failed = conditions.some((c) => c.type === 'ConfigurationsReady' && c.status === 'False');
  conditions = setCondition(
    conditions,
    ready
      ? { type: 'Ready', status: 'True', reason: 'Ready', message: '' }
      : { type: 'Ready', status: failed ? 'False' : 'Unknown', reason: blocked ? blocked.reason : failed ? 'RevisionFailed' : 'Progressing', message: 'see ConfigurationsReady and RoutesReady' },
    now,
  );
  // kstatus: a failed latest revision or a blocked template is Stalled (Failed), not InProgress forever.
  const configurations = conditions.find((c) => c.type === 'ConfigurationsReady')!;
  const waitingOn = conditions.find((c) => (c.type === 'ConfigurationsReady' || c.type === 'RoutesReady') && c.status !== 'True');
  conditions = withProgress(
    conditions,
    ready
      ? { state: 'done' }
      : failed
        ? { state: 'stalled', reason: configurations.reason ?? 'RevisionFailed', message: configurations.message ?? '' }
        : { state: 'reconciling', reason: waitingOn?.reason ?? 'Progressing', message: waitingOn?.message ?? '' },
    now,
  );

  return {
    observedGeneration: fn.metadata.generation,
    url: routerUrl ? `${routerUrl.replace(/\/$/, '')}/${fn.metadata.namespace}/${fn.metadata.name}` : prev?.url,
    latestCreatedRevision: latestCreated?.metadata.name,
    latestReadyRevision: latestReady?.metadata.name,
    traffic,
    revisions: sorted.map((r) => ({
      revisionName: r.metadata.name,
      ready: r.status?.readyWorkers ?? 0,
      desired: r.status?.desiredScale ?? 0,
      actual: r.status?.actualScale ?? 0,
    })),
    conditions,
  };
}

/** Revision names that traffic can reach (any percent, or a tag): these keep their workers. */
export function routableRevisions(status: FunctionStatus | undefined): Set<string> {
  return new Set((status?.traffic ?? []).filter((t) => t.percent > 0 || t.tag).map((t) => t.revisionName));
}

/**
 * The newest Ready revision, never moving back from a newer one that was latest-ready and has
 * not failed (Knative's latestReadyRevisionName only advances): a revision that is merely not
 * Ready for a moment keeps latestRevision traffic and its tag instead of handing them to an
 * older revision.
 */
function latestReadyRevision(sorted: readonly Revision[], previous: string | undefined): Revision | undefined {
  const ready = [...sorted].reverse().find((r) => conditionTrue(r.status?.conditions, 'Ready'));
  const kept = previous === undefined ? undefined : sorted.find((r) => r.metadata.name === previous);
  if (!kept || kept === ready) return ready;
  const failed = kept.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'False');
  const newer = !ready || sorted.indexOf(kept) > sorted.indexOf(ready);
  return newer && !failed ? kept : ready;
}
