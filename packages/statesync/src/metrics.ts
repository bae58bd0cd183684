import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** The metric names; reused when a registry already holds them (two managers, one registry). */
export interface StateSyncMetrics {
  cycles: Counter<'result'>;
  entities: Counter<'direction'>;
  cycleSeconds: Histogram;
  backoffSeconds: Gauge;
}

export function stateSyncMetrics(registry: Registry): StateSyncMetrics {
  const existing = <T>(name: string): T | undefined => registry.getSingleMetric(name) as T | undefined;
  return {
    cycles:
      existing<Counter<'result'>>('orrery_statesync_cycles_total') ??
      new Counter({
        name: 'orrery_statesync_cycles_total',
        help: 'Sync cycles by result (ok, error).',
        labelNames: ['result'],
        registers: [registry],
      }),
    entities:
      existing<Counter<'direction'>>('orrery_statesync_entities_total') ??
      new Counter({
        name: 'orrery_statesync_entities_total',
        help: 'Entities moved through Redis by direction (pulled, pushed).',
        labelNames: ['direction'],
        registers: [registry],
      }),
    cycleSeconds:
      existing<Histogram>('orrery_statesync_cycle_seconds') ??
      new Histogram({
        name: 'orrery_statesync_cycle_seconds',
        help: 'Wall time of one sync cycle (pull then push of every syncable).',
        buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
        registers: [registry],
      }),
    backoffSeconds:
      existing<Gauge>('orrery_statesync_backoff_seconds') ??
      new Gauge({
        name: 'orrery_statesync_backoff_seconds',
        help: 'Current base wait before the next cycle (the period when healthy, doubled per failed cycle).',
        registers: [registry],
      }),
  };
}
