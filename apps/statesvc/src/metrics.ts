import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export type Op = 'get' | 'set' | 'cas' | 'delete' | 'list' | 'admin';

/** statesvc's Prometheus metrics, on a private registry (tests run several servers per process). */
export class StateMetrics {
  readonly registry = new Registry();
  private readonly ops = new Counter({
    name: 'orrery_statestore_ops_total',
    help: 'State API operations by op and result (ok or the error code).',
    labelNames: ['op', 'result'] as const,
    registers: [this.registry],
  });
  private readonly quota = new Counter({
    name: 'orrery_statestore_quota_rejections_total',
    help: 'Writes refused by a quota: value_bytes, keys or namespace_bytes.',
    labelNames: ['kind'] as const,
    registers: [this.registry],
  });
  private readonly duration = new Histogram({
    name: 'orrery_statesvc_request_duration_seconds',
    help: 'State API request duration by op.',
    labelNames: ['op'] as const,
    buckets: [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
    registers: [this.registry],
  });
  // Label children are cached: prom-client hashes label sets on every call otherwise.
  private readonly opChildren = new Map<string, { inc(): void }>();
  private readonly durChildren = new Map<string, { observe(v: number): void }>();

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  observe(op: Op, result: string, seconds: number): void {
    const id = `${op}:${result}`;
    let c = this.opChildren.get(id);
    if (!c) this.opChildren.set(id, (c = this.ops.labels(op, result)));
    c.inc();
    let h = this.durChildren.get(op);
    if (!h) this.durChildren.set(op, (h = this.duration.labels(op)));
    h.observe(seconds);
  }

  quotaRejected(kind: string): void {
    this.quota.labels(kind).inc();
  }
}
