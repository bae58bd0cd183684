/**
 * The Events a reconcile records, read off the change from the status an object had to the status
 * the reconcile computed — the same pure rule on both backends, so `kubectl describe` and the
 * local `GET /v1/events` tell the same story. A transition is reported once: the next reconcile
 * starts from the written status and finds nothing new (a repeat after a lost write is counted
 * on the existing Event by the recorder).
 */
import type { Condition, FunctionStatus, RevisionStatus } from '@orrery/spec';
import type { OperatorEvent } from '../events/event-recorder.ts';

const condition = (conditions: readonly Condition[] | undefined, type: string) => conditions?.find((c) => c.type === type);
const KEYSPACE_TAKEN = 'state_keyspace_taken';

export interface FunctionEventContext {
  /** Why spec.template is not rolled out (crossObjectProblem / keyspaceProblem), if it is not. */
  blocked?: { reason: string; message: string };
  /** The keyspace the Function declares (`spec.state`), if any. */
  keyspace?: string;
}

export function functionEvents(prev: FunctionStatus | undefined, next: FunctionStatus, ctx: FunctionEventContext = {}): OperatorEvent[] {
  const out: OperatorEvent[] = [];
  const created = next.latestCreatedRevision;
  if (created && created !== prev?.latestCreatedRevision) {
    out.push({ reason: 'RevisionCreated', message: `created revision ${created}` });
  }
  const was = condition(prev?.conditions, 'ConfigurationsReady');
  const cfg = condition(next.conditions, 'ConfigurationsReady');
  const keyspaceWasTaken = was?.status === 'False' && was.reason === KEYSPACE_TAKEN;
  if (ctx.keyspace && !ctx.blocked && (keyspaceWasTaken || (created && !prev?.latestCreatedRevision))) {
    out.push({ reason: 'KeyspaceTaken', message: keyspaceWasTaken ? `keyspace ${ctx.keyspace} is this Function's now: its previous owner is gone or moved` : `owns keyspace ${ctx.keyspace}` });
  }
  const ready = next.latestReadyRevision;
  if (ready && ready !== prev?.latestReadyRevision) out.push({ reason: 'RevisionReady', message: `revision ${ready} is ready` });
  const cfgChanged = cfg?.status !== was?.status || cfg?.reason !== was?.reason || created !== prev?.latestCreatedRevision;
  if (cfg?.status === 'False' && cfgChanged) {
    if (ctx.blocked?.reason === KEYSPACE_TAKEN) out.push({ reason: 'KeyspaceConflict', message: ctx.blocked.message });
    else if (ctx.blocked) out.push({ reason: 'RolloutBlocked', message: `${ctx.blocked.reason}: ${ctx.blocked.message}` });
    else out.push({ reason: 'RevisionFailed', message: `${cfg.reason ?? 'RevisionFailed'}: ${cfg.message ?? ''}` });
  }
  return out;
}

/** `why`: the autoscaler's reason for the scale, when it decided it. */
export function revisionEvents(prev: RevisionStatus | undefined, next: RevisionStatus, why?: string): OperatorEvent[] {
  const out: OperatorEvent[] = [];
  const from = prev?.desiredScale ?? 0;
  const to = next.desiredScale ?? 0;
  if (to !== from) out.push({ reason: 'Scaled', message: `scaled from ${from} to ${to}${why ? `: ${why}` : ''}` });
  const was = condition(prev?.conditions, 'Ready');
  const now = condition(next.conditions, 'Ready');
  if (now?.status === 'True' && was?.status !== 'True') out.push({ reason: 'RevisionReady', message: now.message ? `ready: ${now.message}` : 'ready' });
  if (now?.status === 'False' && (was?.status !== 'False' || was.reason !== now.reason)) {
    out.push({ reason: 'RevisionFailed', message: `${now.reason ?? 'NotReady'}: ${now.message ?? ''}` });
  }
  return out;
}
