import type { Autoscaling } from '@orrery/spec';

/** Knative's autoscaling.TargetMin: the per-worker target never goes below this. */
export const TARGET_MIN = 0.01;

/** The platform-wide knobs the target comes from (a subset of KpaDefaults). */
export interface MetricTargetDefaults {
  /** Utilisation for the concurrency metric, in percent (Knative's container-concurrency-target-percentage). */
  containerConcurrencyTargetPercentage: number;
  /** Utilisation for the rps metric, in percent (Knative's TargetUtilization). */
  targetUtilizationPercentage: number;
  /** Concurrency total when containerConcurrency is 0 (Knative's container-concurrency-target-default). */
  containerConcurrencyTargetDefault: number;
  /** Requests per second per worker (Knative's requests-per-second-target-default). */
  rpsTargetDefault: number;
}

export interface MetricTarget {
  /** What the decider divides by: max(0.01, total × utilisation). */
  target: number;
  /** The most a worker is meant to take (the excess burst capacity counts ready workers × total). */
  total: number;
  /** One line a human can read: where the total and the utilisation came from. */
  reason: string;
}

/**
 * knative/serving's ResolveMetricTarget (pkg/reconciler/autoscaling/resources/target.go):
 *
 * - the total starts at the metric's default: for rps the rps default; for concurrency
 *   containerConcurrency, or the concurrency default when containerConcurrency is 0;
 * - `autoscaling.target`, when set, *is* the total — except that for concurrency with a non-zero
 *   containerConcurrency the smaller of the two wins (never aim above the hard limit);
 *   containerConcurrency 0 caps nothing, so a target of 500 is a total of 500;
 * - the utilisation is the function's `targetUtilizationPercentage`, else the platform's for that
 *   metric (concurrency and rps have one each);
 * - target = max(0.01, total × utilisation).
 */
export function resolveMetricTarget(a: Partial<Autoscaling>, containerConcurrency: number, d: MetricTargetDefaults): MetricTarget {
  const rps = a.metric === 'rps';
  let total: number;
  let from: string;
  if (rps) {
    total = d.rpsTargetDefault;
    from = 'rps default';
  } else if (containerConcurrency > 0) {
    total = containerConcurrency;
    from = 'containerConcurrency';
  } else {
    total = d.containerConcurrencyTargetDefault;
    from = 'concurrency default';
  }
  if (a.target !== undefined) {
    if (!rps && containerConcurrency > 0 && containerConcurrency < a.target) {
      from = `containerConcurrency (under target ${a.target})`;
    } else {
      total = a.target;
      from = 'autoscaling.target';
    }
  }
  const pct = a.targetUtilizationPercentage ?? (rps ? d.targetUtilizationPercentage : d.containerConcurrencyTargetPercentage);
  const target = Math.max(TARGET_MIN, total * (pct / 100));
  const floor = target === TARGET_MIN && total * (pct / 100) < TARGET_MIN ? ` (floor ${TARGET_MIN})` : '';
  return { target, total, reason: `${rps ? 'rps' : 'concurrency'} total ${total} from ${from} × ${pct} % → target ${+target.toPrecision(6)}${floor}` };
}
