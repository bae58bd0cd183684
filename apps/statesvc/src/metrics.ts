import { Counter, Gauge, Registry, collectDefaultMetrics, type Metric } from 'prom-client';

/** `fence` is a claim (POST /v1/fences/{key}). `changes` is the opening of a change stream (GET /v1/changes: its duration is the time to the first byte). */
export type Op = 'get' | 'set' | 'cas' | 'delete' | 'list' | 'changes' | 'fence' | 'admin';

const DURATION_BUCKETS = [0.0002, 0.0005, 0.001, 0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];
const DURATION_NAME = 'orrery_statesvc_request_duration_seconds';

/** One op's duration histogram: plain bucket counts, rendered cumulatively at scrape time. */
class DurationBuckets {
  readonly counts = new Float64Array(DURATION_BUCKETS.length);
  sum = 0;
  count = 0;

  observe(seconds: number): void {
    let i = 0;
    while (i < DURATION_BUCKETS.length && seconds > DURATION_BUCKETS[i]!) i++;
    if (i < DURATION_BUCKETS.length) this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }
}

/**
 * statesvc's Prometheus metrics, on a private registry (tests run several servers per process).
 * The request path only bumps plain numbers; prom-client sees them at scrape time. Its own
 * `observe`/`inc` validate and hash the label set on every call (even through cached label
 * children), which cost ~1–2 µs per request in the profile — a few % of a memory-driver PUT.
 */
export class StateMetrics {
  readonly registry = new Registry();
  private readonly opCounts = new Map<string, { op: Op; result: string; n: number }>();
  private readonly quotaCounts = new Map<string, number>();
  private readonly replayCounts = new Map<Op, number>();
  private readonly durations = new Map<Op, DurationBuckets>();
  private openChangeStreams = 0;

  constructor(opts: { defaultMetrics?: boolean } = {}) {
    const opCounts = this.opCounts;
    const quotaCounts = this.quotaCounts;
    new Counter({
      name: 'orrery_statestore_ops_total',
      help: 'State API operations by op and result (ok or the error code).',
      labelNames: ['op', 'result'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const c of opCounts.values()) this.inc({ op: c.op, result: c.result }, c.n);
      },
    });
    new Counter({
      name: 'orrery_statestore_quota_rejections_total',
      help: 'Writes refused by a quota: value_bytes, keys or namespace_bytes.',
      labelNames: ['kind'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [kind, n] of quotaCounts) this.inc({ kind }, n);
      },
    });
    const replayCounts = this.replayCounts;
    new Counter({
      name: 'orrery_statestore_idempotent_replays_total',
      help: 'Requests answered with the stored outcome of an earlier request with the same Idempotency-Key (op get: a recorded read; nothing written or read).',
      labelNames: ['op'] as const,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [op, n] of replayCounts) this.inc({ op }, n);
      },
    });
    const streams = () => this.openChangeStreams;
    new Gauge({
      name: 'orrery_statesvc_change_streams',
      help: 'Change feed streams (GET /v1/changes) open on this statesvc.',
      registers: [this.registry],
      collect() {
        this.set(streams());
      },
    });
    const durations = this.durations;
    const histogram = {
      name: DURATION_NAME,
      help: 'State API request duration by op.',
      type: 'histogram',
      aggregator: 'sum',
      get() {
        const values: Array<{ labels: Record<string, string | number>; value: number; metricName: string }> = [];
        for (const [op, h] of durations) {
          let cumulative = 0;
          DURATION_BUCKETS.forEach((le, i) => {
            cumulative += h.counts[i]!;
            values.push({ labels: { op, le }, value: cumulative, metricName: `${DURATION_NAME}_bucket` });
          });
          values.push({ labels: { op, le: '+Inf' }, value: h.count, metricName: `${DURATION_NAME}_bucket` });
          values.push({ labels: { op }, value: h.sum, metricName: `${DURATION_NAME}_sum` });
          values.push({ labels: { op }, value: h.count, metricName: `${DURATION_NAME}_count` });
        }
        return { name: DURATION_NAME, help: histogram.help, type: 'histogram', aggregator: 'sum', values };
      },
      reset() {
        durations.clear();
      },
    };
    this.registry.registerMetric(histogram as unknown as Metric);
    if (opts.defaultMetrics) collectDefaultMetrics({ register: this.registry });
  }

  observe(op: Op, result: string, seconds: number): void {
    const id = result === 'ok' ? op : `${op}:${result}`;
    const c = this.opCounts.get(id);
    if (c) c.n++;
    else this.opCounts.set(id, { op, result, n: 1 });
    let h = this.durations.get(op);
    if (!h) this.durations.set(op, (h = new DurationBuckets()));
    h.observe(seconds);
  }

  idempotentReplayed(op: Op): void {
    this.replayCounts.set(op, (this.replayCounts.get(op) ?? 0) + 1);
  }

  /** A change stream opened (+1) or ended (-1). */
  changeStreams(delta: number): void {
    this.openChangeStreams += delta;
  }

  quotaRejected(kind: string): void {
    this.quotaCounts.set(kind, (this.quotaCounts.get(kind) ?? 0) + 1);
  }
}
