import { type ActivatorDecision, activatorDecision } from './burst-capacity.ts';
import type { KpaSettings } from './kpa-settings.ts';

export interface KpaObservation {
  nowMs: number;
  /** Metric averaged over the stable window (summed over router replicas). */
  stable: number;
  /** Metric averaged over the panic window. */
  panic: number;
  /** Workers ready now. */
  ready: number;
  /** Receives traffic (a traffic target or tag): only then is scale-down rate limited. */
  reachable?: boolean;
  /**
   * Demand waiting outside the routers, in concurrent requests: messages of the Function's queue
   * triggers not yet worked, each trigger's share capped at its maxInFlight (trigger/queue/). With
   * the concurrency metric it is a floor under both windows; with rps (a rate it cannot be turned
   * into) it asks for one worker. Either way a queue wakes its revision and keeps it from zero.
   */
  backlog?: number;
}

export interface KpaDecision {
  desired: number;
  mode: 'stable' | 'panic';
  /** Whether the router's queue stays in the request path (targetBurstCapacity, burst-capacity.ts). */
  activator: ActivatorDecision;
  /** One line a human can read in Revision status (the activator's reason included). */
  reason: string;
}

/**
 * knative/serving's KPA decider (pkg/autoscaler/scaling/autoscaler.go) plus the PodAutoscaler
 * reconciler's bounds, initial scale and scale-to-zero grace. Pure: the caller supplies time
 * and observations, so every case is testable with a fake clock.
 */
export class KpaDecider {
  private panicSinceMs?: number;
  private maxPanicPods = 0;
  /** (time, desired) pairs within the scale-down delay; the decision is their max. */
  private delayed: Array<[number, number]> = [];
  private initialized: boolean;
  private lastActiveMs: number;
  private zeroWantedSinceMs?: number;
  private last = -1;

  constructor(
    readonly settings: KpaSettings,
    createdMs: number,
  ) {
    this.initialized = settings.initialScale === 0;
    this.lastActiveMs = createdMs;
  }

  /** The previous decision's desired scale (-1 before the first). */
  get lastDesired(): number {
    return this.last;
  }

  decide(o: KpaObservation): KpaDecision {
    const s = this.settings;
    const now = o.nowMs;
    const readyF = Math.max(1, o.ready);
    const maxUp = Math.ceil(s.maxScaleUpRate * readyF);
    const maxDown = o.reachable === false ? 0 : Math.floor(readyF / s.maxScaleDownRate);
    const backlog = Math.max(0, o.backlog ?? 0);
    const stable = s.metric === 'concurrency' ? Math.max(o.stable, backlog) : o.stable;
    const panic = s.metric === 'concurrency' ? Math.max(o.panic, backlog) : o.panic;
    const dspc = Math.ceil(stable / s.target);
    const dppc = Math.ceil(panic / s.target);
    const clamp = (n: number) => Math.min(Math.max(n, maxDown), maxUp);
    const stableDesired = clamp(dspc);
    const panicDesired = clamp(dppc);
    if (panic > 0 || backlog > 0) this.lastActiveMs = now;

    const over = dppc / readyF >= s.panicThreshold;
    if (over) this.panicSinceMs = now; // begin, or extend while still over
    else if (this.panicSinceMs !== undefined && this.panicSinceMs + s.stableWindowMs < now) {
      // The surge has made its way into the stable window: stop panicking.
      this.panicSinceMs = undefined;
      this.maxPanicPods = 0;
    }
    let desired = stableDesired;
    let why = `stable ${fmt(stable)}/${fmt(s.target)} per worker → ${stableDesired}`;
    if (this.panicSinceMs !== undefined) {
      desired = Math.max(stableDesired, panicDesired);
      // In panic the scale only goes up.
      if (desired > this.maxPanicPods) this.maxPanicPods = desired;
      else desired = this.maxPanicPods;
      why = `panic ${fmt(panic)}/${fmt(s.target)} per worker → ${desired}`;
    }
    if (backlog > 0) {
      why += `, queue backlog ${fmt(backlog)}`;
      if (desired === 0) {
        desired = 1;
        why += ' → 1';
      }
    }

    if (s.scaleDownDelayMs > 0) {
      this.delayed.push([now, desired]);
      this.delayed = this.delayed.filter(([t]) => t > now - s.scaleDownDelayMs);
      const held = Math.max(...this.delayed.map(([, d]) => d));
      if (held > desired) why += `, held at ${held} by scale-down delay`;
      desired = held;
    }
    if (desired > 0 && desired < s.activationScale) {
      desired = s.activationScale;
      why += `, raised to activation scale ${desired}`;
    }
    if (desired < s.minScale) {
      desired = s.minScale;
      why += `, min scale ${desired}`;
    }
    if (s.maxScale > 0 && desired > s.maxScale) {
      desired = s.maxScale;
      why += `, max scale ${desired}`;
    }
    if (!this.initialized) {
      if (o.ready >= s.initialScale) this.initialized = true;
      else if (desired < s.initialScale) {
        desired = s.initialScale;
        why += `, initial scale ${desired}`;
      }
    }

    // Running (or found running on the first decision, e.g. after an operator restart).
    if (desired === 0 && (this.last > 0 || (this.last === -1 && o.ready > 0))) {
      // Zero only after a full stable window without demand and then the grace period.
      this.zeroWantedSinceMs ??= now;
      const graceStart = Math.max(this.zeroWantedSinceMs, this.lastActiveMs + s.stableWindowMs);
      const left = graceStart + s.scaleToZeroGracePeriodMs - now;
      if (left > 0) {
        desired = 1;
        why += `, idle: zero in ${Math.ceil(left / 1000)}s`;
      } else why = 'idle for the stable window and the grace period → 0';
    } else if (desired > 0) this.zeroWantedSinceMs = undefined;

    this.last = desired;
    // Spare capacity over the panic window decides where the activator stands (knative's EBC).
    const activator = activatorDecision(desired, { ready: o.ready, total: s.total, targetBurstCapacity: s.targetBurstCapacity, panic: o.panic });
    return { desired, mode: this.panicSinceMs !== undefined ? 'panic' : 'stable', activator, reason: `${why}; ${activator.reason}` };
  }
}

const fmt = (n: number): string => (Number.isInteger(n) ? String(n) : n.toFixed(2));
