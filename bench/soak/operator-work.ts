/**
 * What the operator did over the soak, from two scrapes of its `GET /metrics` (Prometheus text):
 * reconciles by kind and outcome, the time they took, Events written, its CPU, and its event
 * loop's delay. Two runs with the same load but different tails differ here first (more
 * reconciles, errors retried with backoff, a longer-held thread).
 */

/** One sample line: metric name, labels, value. */
export interface MetricSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)(?:\s+\d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

/** Parses the Prometheus text format's sample lines (comments and blank lines skipped). */
export function parseMetrics(text: string): MetricSample[] {
  const out: MetricSample[] = [];
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

/** Sum of a metric's samples grouped by one label ('' = the total). */
export function sumBy(samples: readonly MetricSample[], name: string, label = ''): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    if (s.name !== name) continue;
    const k = label ? (s.labels[label] ?? '') : '';
    out.set(k, (out.get(k) ?? 0) + s.value);
  }
  return out;
}

export interface OperatorWork {
  /** Reconciles per kind in the window: successes, errors, and the seconds they took. */
  reconciles: Array<{ kind: string; success: number; error: number; seconds: number }>;
  /** Events the operator recorded in the window, by outcome (created, series, dropped, failed). */
  events: Record<string, number>;
  cpuSeconds: number;
  /** Worker starts that waited for a start slot in the window, and their waits' sum (local platform). */
  startWaits: { count: number; seconds: number };
  /** The event loop's delay as the last scrape reports it (prom-client's own window). */
  eventLoop: { p50ms: number; p99ms: number; maxms: number };
}

const one = (samples: readonly MetricSample[], name: string): number => sumBy(samples, name).get('') ?? NaN;

/** The operator's work between two scrapes (counters as differences). */
export function operatorWork(before: readonly MetricSample[], after: readonly MetricSample[]): OperatorWork {
  const diff = (name: string, label: string, filter: (s: MetricSample) => boolean = () => true) => {
    const a = sumBy(after.filter(filter), name, label);
    const b = sumBy(before.filter(filter), name, label);
    return new Map([...a].map(([k, v]) => [k, v - (b.get(k) ?? 0)]));
  };
  const ok = diff('orrery_operator_reconcile_total', 'kind', (s) => s.labels.result === 'success');
  const failed = diff('orrery_operator_reconcile_total', 'kind', (s) => s.labels.result === 'error');
  const seconds = diff('orrery_operator_reconcile_duration_seconds_sum', 'kind');
  const kinds = [...new Set([...ok.keys(), ...failed.keys()])].sort();
  return {
    reconciles: kinds.map((kind) => ({ kind, success: ok.get(kind) ?? 0, error: failed.get(kind) ?? 0, seconds: seconds.get(kind) ?? 0 })),
    events: Object.fromEntries(diff('orrery_operator_events_total', 'outcome')),
    cpuSeconds: one(after, 'process_cpu_seconds_total') - one(before, 'process_cpu_seconds_total'),
    // Absent on an operator without start slots (the Kubernetes backend): 0.
    startWaits: {
      count: diff('orrery_operator_worker_start_waits_total', '').get('') ?? 0,
      seconds: diff('orrery_operator_worker_start_wait_seconds_total', '').get('') ?? 0,
    },
    eventLoop: {
      p50ms: one(after, 'nodejs_eventloop_lag_p50_seconds') * 1000,
      p99ms: one(after, 'nodejs_eventloop_lag_p99_seconds') * 1000,
      maxms: one(after, 'nodejs_eventloop_lag_max_seconds') * 1000,
    },
  };
}
