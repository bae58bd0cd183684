/**
 * The queue depth the KPA scales on (autoscaler/kpa-decider.ts `backlog`), in concurrent
 * requests. A trigger never has more than maxInFlight messages at the Function, so its depth
 * counts up to that much: more workers than that could not be given work. The messages go
 * through the router's traffic split like any request, so a revision gets its traffic share.
 */

export interface TriggerDepth {
  /** Messages not yet delivered plus delivered and not yet acked. */
  pending: number;
  maxInFlight: number;
}

/** One Function's backlog: each trigger's depth capped at its maxInFlight, summed. */
export function functionBacklog(triggers: readonly TriggerDepth[]): number {
  return triggers.reduce((sum, t) => sum + Math.min(Math.max(0, t.pending), Math.max(0, t.maxInFlight)), 0);
}

export interface TrafficShare {
  revisionName: string;
  percent: number;
}

/**
 * A revision's part of its Function's backlog, by the resolved traffic split (status.traffic).
 * A tag alone gets none: a message is never sent with Orrery-Tag. Before any traffic resolves
 * (no revision was ready yet) the latest created revision takes it all, so it can start.
 */
export function revisionBacklog(backlog: number, revision: string, traffic: readonly TrafficShare[] | undefined, latestCreated: string | undefined): number {
  if (backlog <= 0) return 0;
  const routed = (traffic ?? []).filter((t) => t.percent > 0);
  if (routed.length === 0) return revision === latestCreated ? backlog : 0;
  const percent = routed.filter((t) => t.revisionName === revision).reduce((sum, t) => sum + t.percent, 0);
  return (backlog * percent) / 100;
}
