import type { OperatorMetrics } from '../metrics/operator-metrics.ts';
import { WorkQueue, type WorkQueueOptions } from './work-queue.ts';

/**
 * The work queue of one kind's reconciler: each run traced as `reconcile <kind>`, and counted
 * (outcomes, durations, depth) under that kind in the operator's metrics when there are any.
 */
export function kindQueue(kind: string, reconcile: (key: string) => Promise<void>, options: Omit<WorkQueueOptions, 'kind' | 'onProcessed'>, metrics?: OperatorMetrics): WorkQueue {
  const queue = new WorkQueue(reconcile, { ...options, kind, ...metrics?.queueOptions(kind) });
  metrics?.watchQueue(kind, queue);
  return queue;
}
