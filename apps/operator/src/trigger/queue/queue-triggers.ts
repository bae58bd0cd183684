/**
 * The queue-trigger dispatcher of an operator (docs/triggers.md "Queue"): it mirrors every
 * Function, runs one QueueTriggerRunner per `spec.triggers.queue[]` entry while connected to the
 * broker, polls each consumer's depth (the KPA's `backlog`, read through backlogOf) and writes
 * each trigger's counters and condition to `status.triggers.queue` through the trigger status
 * seam (trigger-status-store.ts). Runs where the reconcilers run: the local operator, or the
 * Kubernetes leader (started and stopped with each term). A new term resumes from the durable
 * consumers: nothing acked is delivered again, a message in flight when the last term ended is.
 */
import { isDeepStrictEqual } from 'node:util';
import { FunctionSchema, GROUP_VERSION, type OrreryFunction, type QueueTriggerStatus } from '@orrery/spec';
import { mirrorStore, type ResourceStore, type StoreMirror } from '@orrery/store';
import { Events } from 'nats';
import { type EventRecorder, eventTarget, type OperatorEvent } from '../../events/event-recorder.ts';
import { splitKey } from '../../queue/object-key.ts';
import type { TriggerInvoker } from '../trigger-invoker.ts';
import { type TriggerStatusStore, updateTriggerStatus } from '../trigger-status-store.ts';
import { brokerError, JetStreamConsumers } from './jetstream-consumers.ts';
import { connectQueue, type NatsConnection, type QueueConnector } from './nats-connection.ts';
import { functionBacklog, revisionBacklog } from './queue-backlog.ts';
import { countQueueEvent, type QueueCounters, type QueueEvent, type QueueTriggerCondition, queueTriggerStatus, seedCounters } from './queue-trigger-counters.ts';
import type { QueueSettings } from './queue-flags.ts';
import { consumerMoves, planQueueTriggers } from './queue-trigger-plan.ts';
import { QueueTriggerRunner } from './queue-trigger-runner.ts';
import { queueTriggersOf, type QueueTriggerSettings } from './queue-trigger-settings.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export interface QueueTriggersOptions {
  /** Where Functions are read (list and watch): the backend's resource store. */
  store: ResourceStore;
  /** Where status.triggers.queue is written (the backend's trigger status store). */
  statusStore: TriggerStatusStore;
  invoker: TriggerInvoker;
  /** The broker (`--queue-url`); undefined = every queue trigger reports NoBroker. */
  broker: QueueSettings | undefined;
  events?: EventRecorder;
  log: Log;
  warn: Log;
  now?: () => Date;
  /** How often each consumer's depth is read (default 1 s). */
  pollMs?: number;
  /** How often changed status entries are written (default 2 s). */
  flushMs?: number;
  /** Opens the broker connection (tests pass their own). */
  connect?: QueueConnector;
  /** Pull wait of the runners (tests shorten it). */
  pullExpiresMs?: number;
  /** How long a stopping runner lets invocations finish before aborting them (default 5 s). */
  drainMs?: number;
}

interface TriggerState {
  settings: QueueTriggerSettings;
  counters: QueueCounters;
  consumerError?: string;
  /** The stream and consumer are there (the runner ensured them). */
  consumerReady?: boolean;
  pending?: number;
  runner?: QueueTriggerRunner;
}

const NO_BROKER: QueueTriggerCondition = {
  ready: false,
  reason: 'NoBroker',
  message: 'the operator has no --queue-url: start it with --queue-url nats://HOST:4222 (the chart: operator.queue.url), see docs/triggers.md "Queue"',
};

export class QueueTriggers {
  private readonly triggers = new Map<string, TriggerState>();
  /** Every Function as last mirrored, parsed, by `namespace/name`. */
  private functions = new Map<string, OrreryFunction>();
  /** Entries last written (or found) per Function: a write only when they change. */
  private readonly written = new Map<string, QueueTriggerStatus[]>();
  private mirror?: StoreMirror;
  private nc?: NatsConnection;
  private consumers?: JetStreamConsumers;
  private brokerError?: string;
  private stopped = false;
  /** Wakes the connect loop's wait when stopping. */
  private readonly stopping = new AbortController();
  private timers: NodeJS.Timeout[] = [];
  private readonly now: () => Date;
  private applying = Promise.resolve();
  private flushing = false;

  constructor(private readonly o: QueueTriggersOptions) {
    this.now = o.now ?? (() => new Date());
  }

  start(): void {
    this.mirror = mirrorStore({
      store: this.o.store,
      kinds: ['Function'],
      onChange: (objects) => this.functionsChanged(objects.get('Function')?.values() ?? []),
      onError: (err) => this.o.warn('queue triggers: reading Functions failed', { error: (err as Error).message }),
    });
    if (this.o.broker) void this.connectLoop(this.o.broker);
    this.timers.push(setInterval(() => void this.flush(), this.o.flushMs ?? 2000), setInterval(() => void this.poll(), this.o.pollMs ?? 1000));
    for (const t of this.timers) t.unref();
  }

  /**
   * Stops consuming; the consumers stay on the broker for the next term. No last status write:
   * on Kubernetes this runs when the term is over, and the next leader's record wins (counters
   * are written every flushMs, so at most that much counting is lost).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping.abort();
    for (const t of this.timers) clearInterval(t);
    this.mirror?.stop();
    await this.applying;
    await Promise.all([...this.triggers.values()].map((t) => this.stopRunner(t)));
    await this.nc?.close().catch(() => {});
  }

  /**
   * The queue backlog of a revision (`namespace/revision` of Function `fn`) in concurrent
   * requests, for the KPA: its Function's triggers' depth, each capped at maxInFlight, times the
   * revision's traffic share. 0 while no depth is known.
   */
  backlogOf(revisionKey: string, fn: string): number {
    const [namespace, revision] = splitKey(revisionKey);
    const prefix = `${namespace}/${fn}/`;
    const depths: Array<{ pending: number; maxInFlight: number }> = [];
    for (const [key, t] of this.triggers) if (key.startsWith(prefix) && t.pending !== undefined) depths.push({ pending: t.pending, maxInFlight: t.settings.maxInFlight });
    const backlog = functionBacklog(depths);
    if (backlog === 0) return 0;
    const f = this.functions.get(`${namespace}/${fn}`);
    return revisionBacklog(backlog, revision, f?.status?.traffic, f?.status?.latestCreatedRevision);
  }

  /** The status entries of one Function now, in spec order (tests and the flush read them). */
  entriesOf(namespace: string, name: string): QueueTriggerStatus[] {
    const fn = this.functions.get(`${namespace}/${name}`);
    if (!fn) return [];
    return queueTriggersOf(fn).map((s) => {
      const t = this.triggers.get(s.key);
      // Not started yet (the plan runs after the mirror changed): the stored counters, never zeros over them.
      const counters = t?.counters ?? seedCounters(fn.status?.triggers?.queue?.find((e) => e.name === s.name), s.consumer);
      return queueTriggerStatus(s, counters, this.conditionOf(t), t?.pending);
    });
  }

  private conditionOf(t: TriggerState | undefined): QueueTriggerCondition {
    if (!this.o.broker) return NO_BROKER;
    const servers = this.o.broker.servers.join(',');
    // Not connected yet, or disconnected while nats.js reconnects (brokerError set by watchStatus).
    if (!this.nc || this.brokerError) return { ready: false, reason: 'BrokerUnavailable', message: `cannot reach the broker at ${servers}${this.brokerError ? `: ${this.brokerError}` : ''}; retrying` };
    if (t?.consumerError) return { ready: false, reason: 'ConsumerFailed', message: `${t.consumerError}; retrying` };
    if (!t?.runner || !t.consumerReady) return { ready: false, reason: 'Starting', message: t?.runner ? `creating stream ${t.settings.stream} or consumer ${t.settings.consumer}` : `connecting to the broker at ${servers}` };
    return { ready: true, reason: 'Consuming', message: `consuming subject ${t.settings.subject} of stream ${t.settings.stream} as consumer ${t.settings.consumer}` };
  }

  private functionsChanged(objects: Iterable<unknown>): void {
    const fns = new Map<string, OrreryFunction>();
    for (const obj of objects) {
      const parsed = FunctionSchema.safeParse(obj);
      if (parsed.success) fns.set(`${parsed.data.metadata.namespace}/${parsed.data.metadata.name}`, parsed.data);
    }
    this.functions = fns;
    // One plan at a time: a change waits for the runners the previous one stops.
    this.applying = this.applying.then(() => this.apply()).catch((err: unknown) => this.o.warn('queue triggers: applying a change failed', { error: (err as Error).message }));
  }

  private async apply(): Promise<void> {
    if (this.stopped) return;
    const desired = [...this.functions.values()].flatMap((f) => queueTriggersOf(f));
    const running = new Map([...this.triggers].map(([k, t]) => [k, t.settings]));
    const plan = planQueueTriggers(desired, running);
    for (const s of plan.remove) {
      const t = this.triggers.get(s.key)!;
      this.triggers.delete(s.key);
      await this.stopRunner(t);
      await this.consumers?.remove(s).catch((err: unknown) => this.o.warn('queue trigger consumer not deleted', { trigger: s.key, error: brokerError(err) }));
      this.o.log('queue trigger removed', { trigger: s.key, consumer: s.consumer });
    }
    for (const { from, to } of plan.change) {
      const t = this.triggers.get(to.key)!;
      await this.stopRunner(t);
      if (consumerMoves(from, to)) await this.consumers?.remove(from).catch(() => {});
      t.settings = to;
      t.consumerError = undefined;
      if (from.consumer !== to.consumer || from.stream !== to.stream) t.counters = seedCounters(undefined, to.consumer);
      this.startRunner(t);
    }
    for (const s of plan.start) {
      const fn = this.functions.get(`${s.namespace}/${s.function}`);
      const previous = fn?.status?.triggers?.queue?.find((e) => e.name === s.name);
      const t: TriggerState = { settings: s, counters: seedCounters(previous, s.consumer) };
      this.triggers.set(s.key, t);
      this.startRunner(t);
    }
  }

  private startRunner(t: TriggerState): void {
    if (!this.nc || !this.consumers || this.stopped || t.runner) return;
    const s = t.settings;
    const fnKey = `${s.namespace}/${s.function}`;
    t.runner = new QueueTriggerRunner({
      settings: s,
      consumers: this.consumers,
      js: this.nc.jetstream(),
      invoker: this.o.invoker,
      onEvent: (e: QueueEvent) => {
        if (this.triggers.get(s.key) === t) t.counters = countQueueEvent(t.counters, e);
      },
      onConsumer: (error) => {
        if (error && error !== t.consumerError) this.record(fnKey, { reason: 'QueueConsumerFailed', message: `queue trigger ${s.name}: ${error}` });
        t.consumerError = error;
        if (!error) t.consumerReady = true;
      },
      onDeadLetter: (what) => this.record(fnKey, { reason: 'QueueDeadLettered', message: `queue trigger ${s.name}: ${what}` }),
      log: this.o.log,
      now: this.now,
      pullExpiresMs: this.o.pullExpiresMs,
      drainMs: this.o.drainMs,
    });
    t.runner.start();
    this.o.log('queue trigger consuming', { trigger: s.key, stream: s.stream, subject: s.subject, consumer: s.consumer, maxInFlight: s.maxInFlight });
  }

  private async stopRunner(t: TriggerState): Promise<void> {
    const r = t.runner;
    t.runner = undefined;
    t.consumerReady = false;
    await r?.stop();
  }

  private record(fnKey: string, event: OperatorEvent): void {
    const fn = this.functions.get(fnKey);
    if (fn) this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', fn), event);
  }

  /** Connects, keeps the runners going while connected, and starts over when the connection closes. */
  private async connectLoop(broker: QueueSettings): Promise<void> {
    const connect = this.o.connect ?? connectQueue;
    let failures = 0;
    while (!this.stopped) {
      let nc: NatsConnection;
      try {
        nc = await connect(broker);
      } catch (err) {
        failures++;
        const error = brokerError(err);
        if (error !== this.brokerError) this.o.warn('queue broker unreachable', { servers: broker.servers.join(','), error });
        // Every attempt: the recorder folds repeats into one Event with a count (event-series.ts).
        for (const key of this.functionsWithTriggers()) this.record(key, { reason: 'QueueConnectFailed', message: `cannot reach the queue broker at ${broker.servers.join(',')}: ${error}` });
        this.brokerError = error;
        await wait(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)), this.stopping.signal);
        continue;
      }
      if (this.stopped) {
        await nc.close();
        return;
      }
      failures = 0;
      this.brokerError = undefined;
      this.nc = nc;
      this.consumers = new JetStreamConsumers(nc);
      this.o.log('queue broker connected', { servers: broker.servers.join(',') });
      void this.watchStatus(nc);
      await this.applying;
      for (const t of this.triggers.values()) this.startRunner(t);
      await nc.closed();
      this.nc = undefined;
      this.consumers = undefined;
      await Promise.all([...this.triggers.values()].map((t) => this.stopRunner(t)));
      if (!this.stopped) this.o.warn('queue broker connection closed; connecting again', { servers: broker.servers.join(',') });
    }
  }

  /** Disconnects and reconnects show in the status while nats.js reconnects by itself. */
  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const s of nc.status()) {
      if (s.type === Events.Disconnect) this.brokerError = `disconnected from ${typeof s.data === 'string' ? s.data : 'the broker'}`;
      else if (s.type === Events.Reconnect) this.brokerError = undefined;
    }
  }

  private functionsWithTriggers(): string[] {
    return [...this.functions].filter(([, f]) => (f.spec.triggers?.queue?.length ?? 0) > 0).map(([k]) => k);
  }

  private async poll(): Promise<void> {
    const consumers = this.consumers;
    if (!consumers) return;
    await Promise.all(
      [...this.triggers.values()].map(async (t) => {
        if (!t.runner || t.consumerError) return;
        try {
          t.pending = await consumers.depth(t.settings);
        } catch {
          // Not created yet, or the broker is away: the runner reports it.
        }
      }),
    );
  }

  /** Writes the entries of every Function whose queue triggers' status changed. */
  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      for (const [key, fn] of this.functions) {
        const [namespace, name] = splitKey(key);
        const entries = this.entriesOf(namespace, name);
        const stored = this.written.get(key) ?? fn.status?.triggers?.queue ?? [];
        if (entries.length === 0 && stored.length === 0) continue;
        if (isDeepStrictEqual(entries, stored)) continue;
        try {
          const outcome = await updateTriggerStatus(this.o.statusStore, namespace, name, 'queue', (current) => (isDeepStrictEqual(current, entries) ? undefined : entries));
          if (outcome === 'gone') this.written.delete(key);
          else if (outcome !== 'conflict') this.written.set(key, entries);
        } catch (err) {
          this.o.warn('queue trigger status not written', { function: key, error: (err as Error).message });
        }
      }
      for (const key of this.written.keys()) if (!this.functions.has(key)) this.written.delete(key);
    } finally {
      this.flushing = false;
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts. */
function wait(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    if (signal.aborted) return done();
    signal.addEventListener('abort', done, { once: true });
  });
}
