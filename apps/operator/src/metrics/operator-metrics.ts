/**
 * The operator's Prometheus metrics (`GET /metrics`), on a private registry (tests run several
 * operators in one process). Label values are kinds, outcomes, namespaces and object names only:
 * nothing here is a secret. Per-revision series exist only for revisions the KPA tracks now (read
 * at scrape time), so they go away with the revision; counters are labelled per function at most.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { sendJson } from '@orrery/control-http';
import type { TrackedScale } from '../autoscaler/autoscaler.ts';
import type { KpaDecision } from '../autoscaler/kpa-decider.ts';
import { splitKey } from '../queue/object-key.ts';

export type ReconcileOutcome = 'success' | 'error';
/** What a KPA decision did: its first one for a revision, a scale change, or panic ↔ stable only. */
export type ScaleDecisionKind = 'initial' | 'scale_up' | 'scale_down' | 'mode_change';
/** What became of an Event the recorder was asked to write (events/event-series.ts). */
export type EventOutcome = 'created' | 'series' | 'dropped' | 'failed';

const RECONCILE_BUCKETS = [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export function decisionKind(before: Pick<KpaDecision, 'desired' | 'mode'> | undefined, next: Pick<KpaDecision, 'desired' | 'mode'>): ScaleDecisionKind {
  if (!before) return 'initial';
  if (next.desired > before.desired) return 'scale_up';
  if (next.desired < before.desired) return 'scale_down';
  return 'mode_change';
}

/** The local platform's worker start slots, as the metrics read them. */
export interface WorkerStartsSource {
  counts(): { starting: number; waiting: number };
  waits(): { count: number; seconds: number };
}

export interface OperatorMetricsOptions {
  /** True while this replica leads (reconciles); absent = always (the local backend). */
  isLeader?: () => boolean;
  /** process_* and nodejs_* (default on; off in tests that only read the operator's own series). */
  defaultMetrics?: boolean;
}

export class OperatorMetrics {
  readonly registry = new Registry();
  private readonly reconciles: Counter<'kind' | 'result'>;
  private readonly errors: Counter<'kind'>;
  private readonly durations: Histogram<'kind'>;
  private readonly decisions: Counter<'namespace' | 'function' | 'decision'>;
  private readonly events: Counter<'type' | 'reason' | 'outcome'>;
  private readonly depths = new Map<string, () => number>();
  private scales: () => TrackedScale[] = () => [];
  private workerStarts?: WorkerStartsSource;

  constructor(o: OperatorMetricsOptions = {}) {
    const registers = [this.registry];
    if (o.defaultMetrics !== false) collectDefaultMetrics({ register: this.registry });
    this.reconciles = new Counter({ name: 'orrery_operator_reconcile_total', help: 'Reconciles by kind and result (success or error).', labelNames: ['kind', 'result'], registers });
    this.errors = new Counter({ name: 'orrery_operator_reconcile_errors_total', help: 'Failed reconciles by kind (each is retried with backoff).', labelNames: ['kind'], registers });
    this.durations = new Histogram({ name: 'orrery_operator_reconcile_duration_seconds', help: 'Time one reconcile took, by kind.', labelNames: ['kind'], buckets: RECONCILE_BUCKETS, registers });
    const depths = this.depths;
    new Gauge({
      name: 'orrery_operator_workqueue_depth',
      help: 'Keys waiting in the work queue of each kind (not counting the ones being reconciled).',
      labelNames: ['kind'],
      registers,
      collect() {
        this.reset();
        for (const [kind, depth] of depths) this.set({ kind }, depth());
      },
    });
    const isLeader = o.isLeader ?? (() => true);
    new Gauge({
      name: 'orrery_operator_leader',
      help: '1 while this replica holds the leader Lease and reconciles, else 0 (always 1 on the local backend).',
      registers,
      collect() {
        this.set(isLeader() ? 1 : 0);
      },
    });
    this.decisions = new Counter({
      name: 'orrery_operator_autoscaler_decisions_total',
      help: "KPA decisions that changed a revision's scale or mode (initial, scale_up, scale_down, mode_change), per function.",
      labelNames: ['namespace', 'function', 'decision'],
      registers,
    });
    const scaleGauge = (name: string, help: string, pick: (s: TrackedScale) => number) => {
      const scales = () => this.scales();
      new Gauge({
        name,
        help,
        labelNames: ['namespace', 'function', 'revision'],
        registers,
        collect() {
          this.reset();
          for (const s of scales()) this.set({ namespace: s.namespace, function: s.function, revision: s.revision }, pick(s));
        },
      });
    };
    scaleGauge('orrery_operator_autoscaler_desired_scale', 'Workers the KPA wants for each revision it scales now.', (s) => s.desired);
    scaleGauge('orrery_operator_autoscaler_actual_scale', 'Ready workers of each revision the KPA scales now.', (s) => s.ready);
    scaleGauge('orrery_operator_autoscaler_panic_mode', '1 while the KPA is in panic mode for the revision, else 0.', (s) => (s.mode === 'panic' ? 1 : 0));
    const starts = () => this.workerStarts;
    new Gauge({
      name: 'orrery_operator_worker_starts',
      help: 'Local platform: worker processes starting now (spawned, not yet listening) and waiting for a start slot (--worker-start-concurrency).',
      labelNames: ['state'],
      registers,
      collect() {
        this.reset();
        const s = starts();
        if (!s) return;
        const { starting, waiting } = s.counts();
        this.set({ state: 'starting' }, starting);
        this.set({ state: 'waiting' }, waiting);
      },
    });
    new Counter({
      name: 'orrery_operator_worker_start_waits_total',
      help: 'Local platform: worker starts that waited for a start slot.',
      registers,
      collect() {
        this.reset();
        const s = starts();
        if (s) this.inc(s.waits().count);
      },
    });
    new Counter({
      name: 'orrery_operator_worker_start_wait_seconds_total',
      help: 'Local platform: the time worker starts spent waiting for a start slot, summed.',
      registers,
      collect() {
        this.reset();
        const s = starts();
        if (s) this.inc(s.waits().seconds);
      },
    });
    this.events = new Counter({
      name: 'orrery_operator_events_total',
      help: 'Events the operator recorded, by type, reason and outcome (created, series = a repeat counted on the existing Event, dropped by the rate limit, failed to write).',
      labelNames: ['type', 'reason', 'outcome'],
      registers,
    });
  }

  reconciled(kind: string, outcome: ReconcileOutcome, seconds: number): void {
    this.reconciles.inc({ kind, result: outcome });
    if (outcome === 'error') this.errors.inc({ kind });
    this.durations.observe({ kind }, seconds);
  }

  /** WorkQueue options that feed the reconcile metrics of one kind. */
  queueOptions(kind: string): { onProcessed: (key: string, outcome: ReconcileOutcome, seconds: number) => void } {
    return { onProcessed: (_key, outcome, seconds) => this.reconciled(kind, outcome, seconds) };
  }

  /** The depth gauge of a kind reads this queue (a new leader term's queue replaces the last). */
  watchQueue(kind: string, queue: { readonly length: number }): void {
    this.depths.set(kind, () => queue.length);
  }

  /** Where the desired/actual scale gauges read from (the KPA of the current term). */
  watchAutoscaler(autoscaler: { scales(): TrackedScale[] }): void {
    this.scales = () => autoscaler.scales();
  }

  /** Where the worker-start series read from (the local backend's start slots). */
  watchWorkerStarts(source: WorkerStartsSource): void {
    this.workerStarts = source;
  }

  /** The Autoscaler's `onDecision` hook. */
  readonly decided = (key: string, fn: string, before: KpaDecision | undefined, next: KpaDecision): void => {
    this.decisions.inc({ namespace: splitKey(key)[0], function: fn, decision: decisionKind(before, next) });
  };

  event(type: string, reason: string, outcome: EventOutcome): void {
    this.events.inc({ type, reason, outcome });
  }

  /** `GET /metrics` (HEAD too); other methods get 405 with the stable error shape. */
  async respond(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      sendJson(res, 405, { error: 'use GET /metrics', code: 'method_not_allowed' }, { allow: 'GET, HEAD' });
      return;
    }
    const body = await this.registry.metrics();
    res.writeHead(200, { 'content-type': this.registry.contentType }).end(req.method === 'HEAD' ? undefined : body);
  }
}
