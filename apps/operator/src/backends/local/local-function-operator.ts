import {
  type Environment,
  FUNCTION_LABEL,
  GROUP_VERSION,
  declaredKeyspace,
  type OrreryFunction,
  type Revision,
  type ResourceKind,
} from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import { type LocalBackend, type StateCredentials, revisionKey } from './backends/local/local-backend.ts';
import type { Autoscaler } from './autoscaler/autoscaler.ts';
import type { KpaDecision } from './autoscaler/kpa-decider.ts';
import { setCondition } from './reconcile/conditions.ts';
import { withReadyProgress } from './reconcile/kstatus-conditions.ts';
import { keyspaceCleanup } from './keyspace/keyspace-cleanup.ts';
import { WorkQueue } from './queue/work-queue.ts';
import { revisionToCreate, sortRevisions } from './reconcile/function-revisions.ts';
import { crossObjectProblem, keyspaceProblem } from './reconcile/cross-object-rules.ts';
import { keyspaceNeighbours } from './reconcile/keyspace-neighbours.ts';
import { functionStatus, routableRevisions } from './reconcile/function-status.ts';
import { environmentStatus } from './reconcile/environment-status.ts';
import { revisionStatus } from './reconcile/revision-status.ts';
import { stateCredentials } from './reconcile/state-credentials.ts';
import { statusChanged } from './reconcile/status-changed.ts';
import { functionEvents, revisionEvents } from './reconcile/status-events.ts';
import { type EventRecorder, eventTarget } from './events/event-recorder.ts';
import type { OperatorMetrics } from './metrics/operator-metrics.ts';

export interface OperatorOptions {
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
}

const split = (key: string): [string, string] => {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
};

/**
 * Level-triggered reconcilers for Functions and Revisions on the local backend. Every event only
 * enqueues a key; each reconcile reads the current state and converges, so missed or repeated
 * events are harmless.
 */
export class FunctionOperator {
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
  private readonly log: NonNullable<OperatorOptions['log']>;

  constructor(private readonly o: OperatorOptions) {
    this.now = o.now ?? (() => new Date());
    this.log = o.log ?? (() => {});
    const onError = (kind: string, eventKind?: 'Function' | 'Revision' | 'Environment') => (key: string, err: unknown, attempt: number) => {
      this.log(`reconcile ${kind} ${key} failed (attempt ${attempt}): ${(err as Error).message}`, { reconcile: kind, key, attempt });
      // The same failure again is counted on the one Event of its series (event-series.ts).
      if (eventKind) {
        const [namespace, name] = split(key);
        o.events?.record({ apiVersion: GROUP_VERSION, kind: eventKind, namespace, name }, { reason: 'ReconcileFailed', message: String((err as Error | undefined)?.message ?? err) });
      }
    };
    const queue = (kind: string) => ({ kind, ...o.metrics?.queueOptions(kind) });
    this.functions = new WorkQueue((k) => this.reconcileFunction(k), { onError: onError('Function', 'Function'), ...queue('Function') });
    this.revisions = new WorkQueue((k) => this.reconcileRevision(k), { onError: onError('Revision', 'Revision'), concurrency: 4, ...queue('Revision') });
    this.environments = new WorkQueue((k) => this.reconcileEnvironment(k), { onError: onError('Environment', 'Environment'), concurrency: 1, ...queue('Environment') });
    this.keyspaces = new WorkQueue((k) => this.cleanupKeyspace(k), { onError: onError('keyspace cleanup of Function'), concurrency: 1, ...queue('KeyspaceCleanup') });
    o.metrics?.watchQueue('Function', this.functions);
    o.metrics?.watchQueue('Revision', this.revisions);
    o.metrics?.watchQueue('Environment', this.environments);
    o.metrics?.watchQueue('KeyspaceCleanup', this.keyspaces);
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
            for (const f of items as OrreryFunction[]) if (f.spec.template.environment === name) this.functions.add(`${ns}/${f.metadata.name}`);
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
    const [namespace] = split(key);
    const cleanup = keyspaceCleanup(gone, (await this.o.store.list('Function', { namespace })).items);
    if (cleanup.action === 'delete') {
      const deleted = await this.o.deleteKeyspace(cleanup.namespace, cleanup.keyspace);
      this.log(`deleted keyspace ${cleanup.keyspace} of ${key}`, { namespace: cleanup.namespace, keyspace: cleanup.keyspace, keys: deleted });
    } else if (cleanup.why === 'held') {
      this.log(`function ${key}: keyspace ${cleanup.keyspace} retained: Function ${namespace}/${cleanup.holder} declares it too`);
    }
    // A deletion under the same key that arrived meanwhile (re-created, deleted again) stays pending.
    if (this.gone.get(key) === gone) this.gone.delete(key);
  }

  private async revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    const { items } = await this.o.store.list('Revision', { namespace, labels: { [FUNCTION_LABEL]: fn } });
    return items as Revision[];
  }

  async reconcileFunction(key: string): Promise<void> {
    const [namespace, name] = split(key);
    const fn = (await this.o.store.get('Function', namespace, name)) as OrreryFunction | undefined;
    if (!fn) {
      // Revisions belong to their function: delete them with it.
      for (const r of await this.revisionsOf(namespace, name)) await this.o.store.delete('Revision', namespace, r.metadata.name);
      return;
    }
    let revisions = await this.revisionsOf(namespace, name);
    // The store checked the Environment at apply; it may have changed since.
    const environment = (await this.o.store.get('Environment', namespace, fn.spec.template.environment)) as Environment | undefined;
    // One keyspace, one owner (S1): read now, not from `known`, so a Function never rolls out on a
    // keyspace it does not own.
    const blocked = crossObjectProblem(fn, environment) ?? (fn.spec.state ? keyspaceProblem(fn, (await this.o.store.list('Function', { namespace })).items) : undefined);
    const create = blocked ? undefined : revisionToCreate(fn, revisions);
    if (create) {
      const created = (await this.o.store.apply(create, { allowCreateOnlyKinds: true })) as Revision;
      this.log(`created revision ${namespace}/${created.metadata.name}`);
      revisions = [...revisions, created];
    }
    const status = functionStatus({ fn, revisions, routerUrl: this.o.routerUrl, now: this.now(), blocked });
    if (statusChanged(status, fn.status)) {
      await this.o.store.updateStatus('Function', namespace, name, status);
      this.o.events?.record(eventTarget(GROUP_VERSION, 'Function', fn), ...functionEvents(fn.status, status, { blocked, keyspace: declaredKeyspace(fn)?.keyspace }));
    }
    for (const r of revisions) this.revisions.add(`${namespace}/${r.metadata.name}`);
  }

  async reconcileEnvironment(key: string): Promise<void> {
    const [namespace, name] = split(key);
    const env = (await this.o.store.get('Environment', namespace, name)) as Environment | undefined;
    if (!env) return;
    const status = environmentStatus(env, this.o.pool?.readyWorkers?.(namespace, name) ?? 0, this.now());
    if (statusChanged(status, env.status)) {
      await this.o.store.updateStatus('Environment', namespace, name, status);
    }
  }

  async reconcileRevision(key: string): Promise<void> {
    const [namespace, name] = split(key);
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
      const routable = routableRevisions(fn.status);
      const newest = sortRevisions(await this.revisionsOf(namespace, fn.metadata.name)).at(-1)?.metadata.name;
      // The newest revision runs before traffic reaches it, so it can become ready.
      const pooled = this.o.pool && template.executor === 'pool';
      if (pooled && !routable.has(name) && newest !== name) await this.o.pool!.release(key);
      if (routable.has(name) || newest === name) {
        if (pooled) {
          this.o.pool!.keepWarm(rev);
          // The KPA drives pooled revisions too, through the pool executor (never the backend).
          const pooledDecision = this.o.pool!.scale && this.o.autoscaler?.desired(key, rev, routable.has(name));
          if (pooledDecision) {
            this.o.pool!.scale!(rev, pooledDecision.desired, fn ? this.credentials(fn) : undefined);
            poolDecision = pooledDecision;
          }
        } else if (this.o.autoscaler) decision = this.o.autoscaler.desired(key, rev, routable.has(name));
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

export { revisionKey };
