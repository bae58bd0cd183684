import { type Autoscaling, parseDurationMs } from '@orrery/spec';

/** Platform-wide KPA defaults (knative/serving config-autoscaler), overridable by operator flags. */
export interface KpaDefaults {
  stableWindowMs: number;
  panicWindowPercentage: number;
  panicThresholdPercentage: number;
  targetUtilizationPercentage: number;
  /** Concurrency target when containerConcurrency is 0 (unlimited). */
  containerConcurrencyTargetDefault: number;
  rpsTargetDefault: number;
  maxScaleUpRate: number;
  maxScaleDownRate: number;
  scaleToZeroGracePeriodMs: number;
  scaleDownDelayMs: number;
  initialScale: number;
  tickMs: number;
}

export const KPA_DEFAULTS: KpaDefaults = {
  stableWindowMs: 60_000,
  panicWindowPercentage: 10,
  panicThresholdPercentage: 200,
  targetUtilizationPercentage: 70,
  containerConcurrencyTargetDefault: 100,
  rpsTargetDefault: 200,
  maxScaleUpRate: 1000,
  maxScaleDownRate: 2,
  scaleToZeroGracePeriodMs: 30_000,
  scaleDownDelayMs: 0,
  initialScale: 1,
  tickMs: 2_000,
};

/** Everything one revision's decider needs, defaults already applied. */
export interface KpaSettings {
  metric: 'concurrency' | 'rps';
  /** Per-worker value the decider divides by: max(0.01, total × utilization). */
  target: number;
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
}

/**
 * Resolve a revision's autoscaling block against the defaults, with knative/serving's formulas:
 * concurrency total = containerConcurrency (or the default when unlimited), capped by `target`;
 * panic window = round(stable × panic %), never under one second (the bucket size).
 */
export function kpaSettings(a: Partial<Autoscaling>, containerConcurrency: number, d: KpaDefaults = KPA_DEFAULTS): KpaSettings {
  const metric = a.metric ?? 'concurrency';
  let total: number;
  if (metric === 'rps') total = a.target ?? d.rpsTargetDefault;
  else {
    total = containerConcurrency > 0 ? containerConcurrency : d.containerConcurrencyTargetDefault;
    if (a.target !== undefined) total = Math.min(total, a.target);
  }
  const utilization = (a.targetUtilizationPercentage ?? d.targetUtilizationPercentage) / 100;
  const stableWindowMs = a.window !== undefined ? parseDurationMs(a.window) : d.stableWindowMs;
  const panicPct = a.panicWindowPercentage ?? d.panicWindowPercentage;
  return {
    metric,
    target: Math.max(0.01, total * utilization),
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
  };
}
