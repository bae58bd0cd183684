/**
 * The operator's one Event recorder, for both backends: reconcilers say what happened to which
 * object (`record`), the recorder deduplicates and rate-limits (event-series.ts) and hands the
 * write to a sink — Kubernetes Events (backends/kubernetes/kube-event-sink.ts) or the local
 * backend's bounded per-object log (local-event-log.ts). Recording never throws and never waits
 * for the write: an Event is a report, not part of the reconcile.
 */
import { createHash } from 'node:crypto';
import { DEFAULT_SERIES_LIMITS, type SeriesEntry, type SeriesLimits, type TokenBucket, nextSeriesWrite } from './event-series.ts';

/** Who writes the Events (core v1 `reportingComponent`, events.k8s.io `reportingController`). */
export const REPORTING_CONTROLLER = 'orrery.dev/operator';

/**
 * Every reason the operator records, with its type: the stable list docs/operations.md documents
 * (alerts and scripts may match on them).
 */
export const EVENT_REASONS = {
  RevisionCreated: 'Normal',
  RevisionReady: 'Normal',
  RevisionFailed: 'Warning',
  RevisionCollected: 'Normal',
  Scaled: 'Normal',
  KeyspaceTaken: 'Normal',
  KeyspaceConflict: 'Warning',
  RolloutBlocked: 'Warning',
  LearnerAdded: 'Normal',
  LearnerPromoted: 'Normal',
  MemberRemoved: 'Normal',
  LeaderTransferred: 'Normal',
  MembershipStepFailed: 'Warning',
  ReconcileFailed: 'Warning',
  FieldsTakenOver: 'Warning',
  // cron triggers (trigger/cron/)
  CronTriggered: 'Normal',
  CronFailed: 'Warning',
  CronMissed: 'Warning',
  CronScheduleInvalid: 'Warning',
  // queue triggers (trigger/queue/)
  QueueDeadLettered: 'Warning',
  QueueConnectFailed: 'Warning',
  QueueConsumerFailed: 'Warning',
} as const;
export type EventReason = keyof typeof EVENT_REASONS;
export type EventType = (typeof EVENT_REASONS)[EventReason];

/** What happened, in one line for a person. The type follows from the reason. */
export interface OperatorEvent {
  reason: EventReason;
  message: string;
}

/** The object an Event is about (`involvedObject` / `regarding`). */
export interface EventTarget {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

export function eventTarget(apiVersion: string, kind: string, obj: { metadata: { namespace?: string; name: string; uid?: string } }): EventTarget {
  const { namespace, name, uid } = obj.metadata;
  return { apiVersion, kind, namespace: namespace ?? 'default', name, ...(uid ? { uid } : {}) };
}

/** Where Events go. `write` resolves to the count now stored (it may know a higher one than we do). */
export interface EventSink {
  write(target: EventTarget, event: OperatorEvent & { type: EventType }, entry: SeriesEntry, mode: 'create' | 'bump'): Promise<number>;
}

export interface EventRecorderOptions {
  now?: () => number;
  limits?: SeriesLimits;
  /** Series and buckets remembered (least recently used go first). */
  maxSeries?: number;
  log?: (msg: string) => void;
}

/** Messages are capped like Kubernetes' own (1 KiB in events.k8s.io). */
const MAX_MESSAGE = 1024;

export class EventRecorder {
  private readonly series = new Map<string, SeriesEntry>();
  private readonly buckets = new Map<string, TokenBucket>();
  /** Writes of one series run one after another, so a repeat never races its own create. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly now: () => number;
  private readonly maxSeries: number;
  private observer?: (type: EventType, reason: EventReason, outcome: 'created' | 'series' | 'dropped' | 'failed') => void;

  constructor(
    private readonly sink: EventSink,
    private readonly o: EventRecorderOptions = {},
  ) {
    this.now = o.now ?? Date.now;
    this.maxSeries = o.maxSeries ?? 4096;
  }

  /** Told the outcome of every record (the operator's metrics). */
  observeWith(observer: { event(type: string, reason: string, outcome: 'created' | 'series' | 'dropped' | 'failed'): void }): void {
    this.observer = (type, reason, outcome) => observer.event(type, reason, outcome);
  }

  record(target: EventTarget, ...events: OperatorEvent[]): void {
    for (const e of events) this.recordOne(target, e);
  }

  /** Resolves once every write started so far has finished (tests, shutdown). */
  async flush(): Promise<void> {
    while (this.chains.size) await Promise.all([...this.chains.values()]);
  }

  private recordOne(target: EventTarget, e: OperatorEvent): void {
    const type = EVENT_REASONS[e.reason];
    const message = e.message.length > MAX_MESSAGE ? `${e.message.slice(0, MAX_MESSAGE - 1)}…` : e.message;
    const object = `${target.apiVersion}|${target.kind}|${target.namespace}|${target.name}|${target.uid ?? ''}`;
    const key = `${object}|${type}|${e.reason}|${message}`;
    const name = `${target.name}.${createHash('sha256').update(key).digest('hex').slice(0, 16)}`;
    const d = nextSeriesWrite(this.series.get(key), this.buckets.get(object), name, this.now(), this.o.limits ?? DEFAULT_SERIES_LIMITS);
    this.remember(this.series, key, d.entry);
    this.remember(this.buckets, object, d.bucket);
    if (d.write === 'drop') {
      this.observer?.(type, e.reason, 'dropped');
      return;
    }
    const mode = d.write;
    const entry = d.entry;
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(async () => {
      try {
        const stored = await this.sink.write(target, { reason: e.reason, message, type }, entry, mode);
        const cur = this.series.get(key);
        if (cur && stored > cur.count) cur.count = stored;
        this.observer?.(type, e.reason, mode === 'create' ? 'created' : 'series');
      } catch (err) {
        // Written again (as a create) at the next occurrence.
        const cur = this.series.get(key);
        if (cur) cur.written = false;
        this.observer?.(type, e.reason, 'failed');
        this.o.log?.(`event ${e.reason} on ${target.kind} ${target.namespace}/${target.name} not written: ${(err as Error).message}`);
      }
    });
    this.chains.set(key, next);
    void next.then(() => {
      if (this.chains.get(key) === next) this.chains.delete(key);
    });
  }

  private remember<V>(map: Map<string, V>, key: string, value: V): void {
    map.delete(key);
    map.set(key, value);
    if (map.size > this.maxSeries) map.delete(map.keys().next().value!);
  }
}
