import { type Autoscaling, parseDurationMs } from '@orrery/spec';
import { resolveMetricTarget } from './metric-target.ts';

/** Platform-wide KPA defaults (knative/serving config-autoscaler), overridable by operator flags. */
export interface KpaDefaults {
  stableWindowMs: number;
  panicWindowPercentage: number;
  panicThresholdPercentage: number;
  /** Utilisation of the rps metric (Knative's TargetUtilization). */
  targetUtilizationPercentage: number;
  /** Utilisation of the concurrency metric (Knative's container-concurrency-target-percentage). */
  containerConcurrencyTargetPercentage: number;
  /** Concurrency total when containerConcurrency is 0 (unlimited). */
  containerConcurrencyTargetDefault: number;
  rpsTargetDefault: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  scaleToZeroGracePeriodMs: number;
  scaleDownDelayMs: number;
  initialScale: number;
  /** Spare capacity kept before the activator leaves the path; -1 = always in the path (burst-capacity.ts). */
  targetBurstCapacity: number;
  tickMs: number;
}

export const KPA_DEFAULTS: KpaDefaults = {
  stableWindowMs: 60_000,
  panicWindowPercentage: 10,
  panicThresholdPercentage: 200,
  targetUtilizationPercentage: 70,
  containerConcurrencyTargetPercentage: 70,
  containerConcurrencyTargetDefault: 100,
  rpsTargetDefault: 200,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  scaleToZeroGracePeriodMs: 30_000,
  scaleDownDelayMs: 0,
  initialScale: 1,
  // The seed's default (knative's config-autoscaler ships 211 today; its docs say 200).
  targetBurstCapacity: 200,
  tickMs: 2_000,
};

/** Everything one revision's decider needs, defaults already applied. */
export interface KpaSettings {
  metric: 'concurrency' | 'rps';
  /** Per-worker value the decider divides by: max(0.01, total × utilization). */
  target: number;
  /** Per-worker total the target is a share of (metric-target.ts). */
  total: number;
  stableWindowMs: number;
  panicWindowMs: number;
  /** As a ratio (2 = 200 %). */
  panicThreshold: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  minScale: number;
  /** 0 = unbounded. */
  maxScale: number;
  initialScale: number;
  activationScale: number;
  scaleDownDelayMs: number;
  scaleToZeroGracePeriodMs: number;
  /** ≥ 0, or -1 (the activator always stays in the path). */
  targetBurstCapacity: number;
}

/**
 * Resolve a revision's autoscaling block against the defaults, with knative/serving's formulas:
 * target and total as ResolveMetricTarget (metric-target.ts); panic window = round(stable ×
 * panic %), never under one second (the bucket size).
 */
export function kpaSettings(a: Partial<Autoscaling>, containerConcurrency: number, d: KpaDefaults = KPA_DEFAULTS): KpaSettings {
  const metric = a.metric ?? 'concurrency';
  const { target, total } = resolveMetricTarget({ ...a, metric }, containerConcurrency, d);
  const stableWindowMs = a.window !== undefined ? parseDurationMs(a.window) : d.stableWindowMs;
  const panicPct = a.panicWindowPercentage ?? d.panicWindowPercentage;
  return {
    metric,
    target,
    total,
    stableWindowMs,
    panicWindowMs: Math.max(1000, Math.round((stableWindowMs * panicPct) / 100)),
    panicThreshold: (a.panicThresholdPercentage ?? d.panicThresholdPercentage) / 100,
    maxScaleUpRate: a.maxScaleUpRate ?? d.maxScaleUpRate,
    maxScaleDownRate: a.maxScaleDownRate ?? d.maxScaleDownRate,
    minScale: a.minScale ?? 0,
    maxScale: a.maxScale ?? 0,
    initialScale: a.initialScale ?? d.initialScale,
    activationScale: a.activationScale ?? 1,
    scaleDownDelayMs: a.scaleDownDelay !== undefined ? parseDurationMs(a.scaleDownDelay) : d.scaleDownDelayMs,
    scaleToZeroGracePeriodMs: d.scaleToZeroGracePeriodMs,
    targetBurstCapacity: a.targetBurstCapacity ?? d.targetBurstCapacity,
  };
}
