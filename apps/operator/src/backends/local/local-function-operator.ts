import {
  type Environment,
  GROUP_VERSION,
  type OrreryFunction,
  type Revision,
  type ResourceKind,
  type StateCredentials,
} from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import type { LocalBackend } from './local-backend.ts';
import { LocalFunctionBackend } from './local-function-backend.ts';
import type { Autoscaler } from '../../autoscaler/autoscaler.ts';
import type { KpaDecision } from '../../autoscaler/kpa-decider.ts';
import { FunctionReconciler } from '../../function/function-reconciler.ts';
import type { RevisionGcSettings } from '../../function/revision-collection.ts';
import { revisionWanted } from '../../function/revision-wanted.ts';
import { setCondition } from '../../reconcile/conditions.ts';
import { withReadyProgress } from '../../reconcile/kstatus-conditions.ts';
import { kindQueue } from '../../queue/kind-queue.ts';
import { objectKey, splitKey } from '../../queue/object-key.ts';
import type { WorkQueue } from '../../queue/work-queue.ts';
import { keyspaceNeighbours } from '../../reconcile/keyspace-neighbours.ts';
import { environmentStatus } from '../../reconcile/environment-status.ts';
import { revisionStatus } from '../../reconcile/revision-status.ts';
import { stateCredentials } from '../../reconcile/state-credentials.ts';
import { statusChanged } from '../../reconcile/status-changed.ts';
import { revisionEvents } from '../../reconcile/status-events.ts';
import { type EventRecorder, eventTarget } from '../../events/event-recorder.ts';
import type { OperatorMetrics } from '../../metrics/operator-metrics.ts';

export interface LocalFunctionOperatorOptions {
  store: ResourceStore;
  backend: LocalBackend;
  /** Master key for deriving per-keyspace state tokens (absent = stateful functions get none). */
  masterKey?: Buffer;
  stateUrl?: string;
  routerUrl?: string;
  resyncMs?: number;
  /** KPA for deploy-executor revisions; absent = the fixed scale max(1, minScale). */
  autoscaler?: Autoscaler;
  /** Pool-executor revisions are served by specialized pool workers, not by revision workers. */
  pool?: {
    keepWarm(rev: Revision): void;
    release(key: string): Promise<void>;
    readyWorkers?(namespace: string, environment: string): number;
    /** The KPA's desired scale for a pooled revision (specializes more warm workers under load). */
    scale?(rev: Revision, desired: number, credentials?: StateCredentials): void;
  };
  /**
   * Deletes a keyspace's data (statesvc's signed admin call) for a Function deleted with
   * `spec.state.onDelete: delete`; absent = keyspace data is always retained.
   */
  deleteKeyspace?: (namespace: string, keyspace: string) => Promise<unknown>;
  /** Events about Functions and Revisions (local: the bounded log behind GET /v1/events). */
  events?: EventRecorder;
  /** Reconcile counts, durations and queue depths per kind (GET /metrics). */
  metrics?: OperatorMetrics;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  now?: () => Date;
  /** Revision garbage collection where a Function says nothing (`--revision-gc-keep`, `--revision-gc-min-age`). */
  revisionGc?: RevisionGcSettings;
}

/**
 * The Function, Revision and Environment reconcilers of the local backend: the shared Function
 * reconciler (function/function-reconciler.ts) over the resource store, revisions run as local
 * worker processes (local-backend.ts) or specialized pool workers. Every event only enqueues a
 * key; each reconcile reads the current state and converges, so missed or repeated events are
 * harmless.
 */
export class LocalFunctionOperator {
  readonly functions: WorkQueue;
  readonly revisions: WorkQueue;
  readonly environments: WorkQueue;
  /** Keyspace cleanups of deleted Functions (policy `delete`), retried until statesvc answers. */
  readonly keyspaces: WorkQueue;
  /** The deleted Functions whose cleanup is pending, by key (the store no longer has them). */
  private readonly gone = new Map<string, unknown>();
  /**
   * Every Function as last seen (watch events and resyncs), by key: whom a keyspace belongs to
   * when credentials are asked for synchronously (pool specialization, scale-up), and which
   * other Functions an event's old and new keyspace concern.
   */
  private readonly known = new Map<string, unknown>();
  private watches: Watch[] = [];
  private resyncTimer?: NodeJS.Timeout;
  private readonly now: () => Date;
  private readonly log: NonNullable<LocalFunctionOperatorOptions['log']>;
  private readonly functionBackend: LocalFunctionBackend;
  private readonly functionReconciler: FunctionReconciler;

  constructor(private readonly o: LocalFunctionOperatorOptions) {
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
    const onError = (kind: string, eventKind?: 'Function' | 'Revision' | 'Environment') => (key: string, err: unknown, attempt: number) => {
      this.log(`reconcile ${kind} ${key} failed (attempt ${attempt}): ${(err as Error).message}`, { reconcile: kind, key, attempt });
      // The same failure again is counted on the one Event of its series (event-series.ts).
      if (eventKind) {
        const [namespace, name] = splitKey(key);
        o.events?.record({ apiVersion: GROUP_VERSION, kind: eventKind, namespace, name }, { reason: 'ReconcileFailed', message: String((err as Error | undefined)?.message ?? err) });
      }
    };
    this.functions = kindQueue('Function', (k) => this.reconcileFunction(k), { onError: onError('Function', 'Function') }, o.metrics);
    this.revisions = kindQueue('Revision', (k) => this.reconcileRevision(k), { onError: onError('Revision', 'Revision'), concurrency: 4 }, o.metrics);
    this.environments = kindQueue('Environment', (k) => this.reconcileEnvironment(k), { onError: onError('Environment', 'Environment'), concurrency: 1 }, o.metrics);
    this.keyspaces = kindQueue('KeyspaceCleanup', (k) => this.cleanupKeyspace(k), { onError: onError('keyspace cleanup of Function'), concurrency: 1 }, o.metrics);
    this.functionBackend = new LocalFunctionBackend(o.store);
    this.functionReconciler = new FunctionReconciler({
      backend: this.functionBackend,
      routerUrl: o.routerUrl,
      deleteKeyspace: o.deleteKeyspace,
      revisionChanged: (key) => this.revisions.add(key),
      events: o.events,
      log: this.log,
      now: this.now,
      revisionGc: o.revisionGc,
    });
  }

  async start(): Promise<void> {
    const watch = (kind: ResourceKind, on: (ns: string, name: string, obj: unknown) => void) =>
      this.o.store.watch(kind, {}, (e) => on(e.object.metadata.namespace, e.object.metadata.name, e.object));
    this.watches.push(
      this.o.store.watch('Function', {}, (e) => {
        const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
        const before = this.known.get(key);
        if (e.type === 'deleted') this.known.delete(key);
        else this.known.set(key, e.object);
        this.functions.add(key);
        // One keyspace, one owner: the others declaring the keyspace it held or now declares
        // may have to wait for it or may proceed now.
        for (const k of keyspaceNeighbours(before ? [before, e.object] : [e.object], this.known.values())) this.functions.add(k);
      }),
      // The local store has no finalizers: a deleted Function is gone at once, so its keyspace
      // cleanup works from the deleted object the watch delivers.
      this.o.store.watch('Function', {}, (e) => {
        if (e.type !== 'deleted' || !this.o.deleteKeyspace) return;
        const key = `${e.object.metadata.namespace}/${e.object.metadata.name}`;
        this.gone.set(key, e.object);
        this.keyspaces.add(key);
      }),
      watch('Environment', (ns, name) => {
        this.environments.add(`${ns}/${name}`);
        // Functions on it: a rule that reads the Environment may now hold or fail for them.
        void this.o.store
          .list('Function', { namespace: ns })
          .then(({ items }) => {
            for (const f of items as OrreryFunction[]) if (f.spec.template.environment === name) this.functions.add(objectKey(ns, f.metadata.name));
          })
          .catch(() => {}); // the periodic resync catches up
      }),
      watch('Revision', (ns, name, obj) => {
        this.revisions.add(`${ns}/${name}`);
        this.functions.add(`${ns}/${(obj as Revision).spec.function}`);
      }),
    );
    await this.resync();
    this.resyncTimer = setInterval(() => void this.resync().catch(() => {}), this.o.resyncMs ?? 30_000);
    this.resyncTimer.unref();
  }

  /** Enqueue everything: catches up after a restart and heals anything a missed event left. */
  async resync(): Promise<void> {
    const functions = await this.o.store.list('Function');
    this.remember(functions.items, functions.resourceVersion);
    for (const f of functions.items) this.functions.add(`${f.metadata.namespace}/${f.metadata.name}`);
    for (const r of (await this.o.store.list('Revision')).items) this.revisions.add(`${r.metadata.namespace}/${r.metadata.name}`);
    // Also refreshes each Environment's warm-worker count, which changes without a store event.
    for (const e of (await this.o.store.list('Environment')).items) this.environments.add(`${e.metadata.namespace}/${e.metadata.name}`);
    for (const key of this.o.backend.revisionKeys()) this.revisions.add(key);
  }

  /** Merges a list into `known`; a watch event newer than the list wins, whichever came first. */
  private remember(items: readonly { metadata: { namespace: string; name: string; resourceVersion?: string | number } }[], listedAt: number): void {
    const rv = (o: unknown) => Number((o as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion ?? 0);
    const listed = new Set<string>();
    for (const f of items) {
      const key = `${f.metadata.namespace}/${f.metadata.name}`;
      listed.add(key);
      const cur = this.known.get(key);
      if (!cur || rv(cur) <= rv(f)) this.known.set(key, f);
    }
    for (const [key, cur] of this.known) if (!listed.has(key) && rv(cur) <= listedAt) this.known.delete(key);
  }

  /** Called by the backend when a worker changes state. */
  workerChanged(key: string): void {
    this.revisions.add(key);
  }

  async stop(): Promise<void> {
    clearInterval(this.resyncTimer);
    for (const w of this.watches) w.close();
    this.functions.stop();
    this.revisions.stop();
    this.environments.stop();
    this.keyspaces.stop();
  }

  /**
   * The keyspace of a deleted Function, per its policy (keyspaceCleanup: `onDelete: delete`, and
   * no Function left in the store declares the keyspace). A statesvc failure throws: the queue
   * retries with backoff and the deleted object stays pending.
   */
  async cleanupKeyspace(key: string): Promise<void> {
    const gone = this.gone.get(key);
    if (!gone || !this.o.deleteKeyspace) return;
    const [namespace] = splitKey(key);
    await this.functionReconciler.releaseKeyspace(key, gone, await this.functionBackend.functions(namespace));
    // A deletion under the same key that arrived meanwhile (re-created, deleted again) stays pending.
    if (this.gone.get(key) === gone) this.gone.delete(key);
  }

  async reconcileFunction(key: string): Promise<void> {
    await this.functionReconciler.reconcile(key);
  }

  async reconcileEnvironment(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const env = (await this.o.store.get('Environment', namespace, name)) as Environment | undefined;
    if (!env) return;
    const status = environmentStatus(env, this.o.pool?.readyWorkers?.(namespace, name) ?? 0, this.now());
    if (statusChanged(status, env.status)) {
      await this.o.store.updateStatus('Environment', namespace, name, status);
    }
  }

  async reconcileRevision(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const rev = (await this.o.store.get('Revision', namespace, name)) as Revision | undefined;
    if (!rev) {
      this.o.autoscaler?.forget(key);
      await this.o.pool?.release(key);
      await this.o.backend.scale({ metadata: { namespace, name } } as Revision, 0);
      return;
    }
    const fn = (await this.o.store.get('Function', namespace, rev.spec.function)) as OrreryFunction | undefined;
    const template = rev.spec.template;
    let desired = 0;
    let decision: KpaDecision | undefined;
    let unsupported: { reason: string; message: string } | undefined;
    let poolDecision: KpaDecision | undefined;
    if (template.executor === 'container') {
      unsupported = { reason: 'ExecutorUnsupported', message: 'the container executor needs the Kubernetes backend; use executor deploy or pool locally' };
    } else if (fn) {
      const { routable, wanted } = revisionWanted(fn, await this.functionBackend.revisionsOf(namespace, fn.metadata.name), name);
      const pooled = this.o.pool && template.executor === 'pool';
      if (pooled && !wanted) await this.o.pool!.release(key);
      if (wanted) {
        if (pooled) {
          this.o.pool!.keepWarm(rev);
          // The KPA drives pooled revisions too, through the pool executor (never the backend).
          const pooledDecision = this.o.pool!.scale && this.o.autoscaler?.desired(key, rev, routable);
          if (pooledDecision) {
            this.o.pool!.scale!(rev, pooledDecision.desired, fn ? this.credentials(fn) : undefined);
            poolDecision = pooledDecision;
          }
        } else if (this.o.autoscaler) decision = this.o.autoscaler.desired(key, rev, routable);
        else desired = Math.max(1, template.autoscaling.minScale ?? 1);
        if (decision) desired = decision.desired;
      }
    }
    if (!decision && !poolDecision) this.o.autoscaler?.forget(key);
    await this.o.backend.scale(rev, desired, fn ? this.credentials(fn) : undefined);
    const status = revisionStatus(rev, this.o.backend.observe(namespace, name), this.now(), unsupported);
    if (decision) {
      status.autoscalerMode = decision.mode;
      status.lastDecision = decision.reason;
    } else if (this.o.pool && template.executor === 'pool' && !unsupported) {
      status.conditions = withReadyProgress(setCondition(status.conditions, { type: 'Ready', status: 'True', reason: 'PoolExecutor', message: 'served by specialized pool workers on demand' }, this.now()), this.now());
      if (poolDecision) {
        status.autoscalerMode = poolDecision.mode;
        status.lastDecision = poolDecision.reason;
      }
    }
    if (statusChanged(status, rev.status)) {
      await this.o.store.updateStatus('Revision', namespace, name, status);
      this.o.events?.record(eventTarget(GROUP_VERSION, 'Revision', rev), ...revisionEvents(rev.status, status, (decision ?? poolDecision)?.reason));
    }
  }

  /** Scoped state credentials for a stateful function (deploy env or specialize body). */
  credentials(fn: OrreryFunction): StateCredentials | undefined {
    return stateCredentials(fn, this.o, this.known.values());
  }
}

