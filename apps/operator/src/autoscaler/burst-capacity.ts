/**
 * Target burst capacity (knative/serving): how much spare capacity a revision must have before
 * the activator leaves the request path. Pure: the decider feeds it each tick.
 *
 * - Excess burst capacity (pkg/autoscaler/scaling/autoscaler.go):
 *   `⌊ready × total − targetBurstCapacity − panic⌋` for a positive targetBurstCapacity, where
 *   `ready` is the workers ready now (0 stays 0), `total` the per-worker total of the metric
 *   (metric-target.ts) and `panic` the metric over the panic window; exactly 0 when
 *   targetBurstCapacity is 0; −1 when it is −1 (unlimited).
 * - The activator's place (pkg/reconciler/autoscaling/kpa/kpa.go): out of the path only when
 *   the wanted scale is above 0 **and** the excess burst capacity is ≥ 0; in it otherwise. So
 *   −1 keeps it in the path always, 0 only at scale 0, and a positive value while the ready
 *   workers' spare capacity is below it.
 */

export interface BurstInput {
  /** Workers ready now. */
  ready: number;
  /** Per-worker total (not the target: the target is a share of it). */
  total: number;
  /** ≥ 0, or −1. */
  targetBurstCapacity: number;
  /** The metric averaged over the panic window (all routers). */
  panic: number;
}

export function excessBurstCapacity(i: BurstInput): number {
  if (i.targetBurstCapacity === 0) return 0;
  if (i.targetBurstCapacity < 0) return -1;
  return Math.floor(i.ready * i.total - i.targetBurstCapacity - i.panic);
}

export interface ActivatorDecision {
  /** The activator (the router's queue) stays in the request path. */
  inPath: boolean;
  excessBurstCapacity: number;
  /** One line a human can read. */
  reason: string;
}

/** @param want the scale the KPA wants now (the decision's desired scale) */
export function activatorDecision(want: number, i: BurstInput): ActivatorDecision {
  const ebc = excessBurstCapacity(i);
  const inPath = !(want > 0 && ebc >= 0);
  let reason: string;
  if (i.targetBurstCapacity < 0) reason = 'activator always in the path (targetBurstCapacity -1)';
  else if (want <= 0) reason = 'activator in the path at scale 0';
  else if (i.targetBurstCapacity === 0) reason = 'activator out of the path (targetBurstCapacity 0)';
  else {
    const sum = `⌊${i.ready} × ${fmt(i.total)} − ${fmt(i.targetBurstCapacity)} − ${fmt(i.panic)}⌋`;
    reason = inPath ? `activator in the path: excess burst capacity ${sum} = ${ebc} < 0` : `activator out of the path: excess burst capacity ${sum} = ${ebc} ≥ 0`;
  }
  return { inPath, excessBurstCapacity: ebc, reason };
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
