import { FunctionSchema, GROUP_VERSION, type OrreryFunction, type StateCredentials } from '@orrery/spec';
import type { ResourceStore, Watch } from '@orrery/store';
import type { LocalBackend } from './local-backend.ts';
import { LocalEnvironmentBackend } from './local-environment-backend.ts';
import { LocalFunctionBackend } from './local-function-backend.ts';
import { LocalObjectCache } from './local-object-cache.ts';
import type { LocalPackageBuilds } from './local-package-builds.ts';
import { LocalRevisionBackend, type LocalRevisionPool } from './local-revision-backend.ts';
import type { Autoscaler } from '../../autoscaler/autoscaler.ts';
import { EnvironmentReconciler } from '../../environment/environment-reconciler.ts';
import { FunctionFamilyEvents } from '../../function/function-family-events.ts';
import { FunctionReconciler } from '../../function/function-reconciler.ts';
import type { RevisionGcSettings } from '../../function/revision-collection.ts';
import { kindQueue } from '../../queue/kind-queue.ts';
import { objectKey, splitKey } from '../../queue/object-key.ts';
import type { WorkQueue } from '../../queue/work-queue.ts';
import { stateCredentials } from '../../reconcile/state-credentials.ts';
import { RevisionReconciler } from '../../revision/revision-reconciler.ts';
import type { EventRecorder } from '../../events/event-recorder.ts';
import type { OperatorMetrics } from '../../metrics/operator-metrics.ts';
import type { DomainReconciler } from '../../domain/domain-reconciler.ts';

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
  pool?: LocalRevisionPool;
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
  /** Custom domains (spec.domains): claims, certificates and status.domains; absent = no status.domains. */
  domains?: DomainReconciler;
  /** Package builds (source.package, docs/packages.md); absent = packages never build and their revisions wait. */
  packages?: LocalPackageBuilds;
  /** The informer cache this operator fills and its reconcilers read (shared with the custom-domain pass); absent: its own. */
  cache?: LocalObjectCache;
}

/**
 * The Function, Revision and Environment reconcilers of the local backend: the shared Function
 * reconciler (function/function-reconciler.ts) over the resource store, revisions run as local
 * worker processes (local-backend.ts) or specialized pool workers. Every event updates the
 * informer cache the reconcilers read (local-object-cache.ts) and enqueues a key; each reconcile
 * reads the current state and converges, so missed or repeated events are harmless.
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
   * Every Function, Revision and Environment as last seen (watch events, resyncs, own writes): what
   * the reconcilers read, whom a keyspace belongs to when credentials are asked for synchronously
   * (pool specialization, scale-up), and which other Functions an event's keyspaces concern.
   */
  private readonly cache: LocalObjectCache;
  private watches: Watch[] = [];
  private resyncTimer?: NodeJS.Timeout;
  private readonly now: () => Date;
  private readonly log: NonNullable<LocalFunctionOperatorOptions['log']>;
  private readonly functionBackend: LocalFunctionBackend;
  private readonly functionReconciler: FunctionReconciler;
  private readonly revisionReconciler: RevisionReconciler;
  private readonly environmentReconciler: EnvironmentReconciler;

  constructor(private readonly o: LocalFunctionOperatorOptions) {
    this.now = o.now ?? (() => new Date());
    this.cache = o.cache ?? new LocalObjectCache();
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
    const packages = o.packages;
    this.functionBackend = new LocalFunctionBackend(o.store, packages ? (key) => packages.gateOfFunction(key) : undefined, this.now, this.cache);
    this.functionReconciler = new FunctionReconciler({
      backend: this.functionBackend,
      routerUrl: o.routerUrl,
      deleteKeyspace: o.deleteKeyspace,
      revisionChanged: (key) => this.revisions.add(key),
      events: o.events,
      log: this.log,
      now: this.now,
      revisionGc: o.revisionGc,
      domains: o.domains ? (fn) => o.domains!.statusOf(fn) : undefined,
    });
    this.revisionReconciler = new RevisionReconciler({
      backend: new LocalRevisionBackend({
        store: o.store,
        cache: this.cache,
        functions: this.functionBackend,
        workers: o.backend,
        pool: o.pool,
        credentials: (fn) => this.credentials(fn),
        packageGate: packages ? (rev) => packages.gate(rev) : undefined,
      }),
      autoscaler: o.autoscaler,
      events: o.events,
      now: this.now,
    });
    this.environmentReconciler = new EnvironmentReconciler({ backend: new LocalEnvironmentBackend(o.store, o.pool), now: this.now });
  }

  async start(): Promise<void> {
    const events = new FunctionFamilyEvents({ functions: this.functions, revisions: this.revisions, environments: this.environments }, () => this.cache.values('Function'));
    // The cache first: the reconcile an event enqueues must read at least that event's object.
    this.watches.push(
      this.o.store.watch('Function', {}, (e) => {
        const key = objectKey(e.object.metadata.namespace, e.object.metadata.name);
        this.cache.event('Function', e);
        events.functionChanged(e.object, e.type === 'deleted');
        // A host is claimed cluster-wide: any Function's change may move one.
        this.o.domains?.kick();
        // The local store has no finalizers: a deleted Function is gone at once, so its keyspace
        // cleanup works from the deleted object the watch delivers.
        if (e.type === 'deleted' && this.o.deleteKeyspace) {
          this.gone.set(key, e.object);
          this.keyspaces.add(key);
        }
      }),
      this.o.store.watch('Environment', {}, (e) => {
        this.cache.event('Environment', e);
        events.environmentChanged(e.object);
      }),
      this.o.store.watch('Revision', {}, (e) => {
        this.cache.event('Revision', e);
        events.revisionChanged(e.object);
      }),
    );
    await this.resync();
    this.o.domains?.start(this.o.resyncMs ?? 30_000);
    this.resyncTimer = setInterval(() => void this.resync().catch(() => {}), this.o.resyncMs ?? 30_000);
    this.resyncTimer.unref();
  }

  /** Enqueue everything: catches up after a restart and heals anything a missed event left. */
  async resync(): Promise<void> {
    // Revisions and Environments before Functions: a Function reconcile that runs between two
    // lists must not find its Function listed and its Revisions not (it would number a new one after none).
    const revisions = await this.o.store.list('Revision');
    this.cache.replace('Revision', revisions.items, revisions.resourceVersion);
    const environments = await this.o.store.list('Environment');
    this.cache.replace('Environment', environments.items, environments.resourceVersion);
    const functions = await this.o.store.list('Function');
    this.cache.replace('Function', functions.items, functions.resourceVersion);
    for (const f of functions.items) this.functions.add(`${f.metadata.namespace}/${f.metadata.name}`);
    for (const r of revisions.items) this.revisions.add(`${r.metadata.namespace}/${r.metadata.name}`);
    // Also refreshes each Environment's warm-worker count, which changes without a store event.
    for (const e of environments.items) this.environments.add(`${e.metadata.namespace}/${e.metadata.name}`);
    for (const key of this.o.backend.revisionKeys()) this.revisions.add(key);
  }

  /** Called by the backend when a worker changes state. */
  workerChanged(key: string): void {
    this.revisions.add(key);
  }

  async stop(): Promise<void> {
    clearInterval(this.resyncTimer);
    await this.o.domains?.stop();
    for (const w of this.watches) w.close();
    this.functions.stop();
    this.revisions.stop();
    this.environments.stop();
    this.keyspaces.stop();
    this.o.packages?.stop();
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
    // Fresh reads, not the cache: a keyspace another Function declares by now is never wiped.
    await this.functionReconciler.releaseKeyspace(key, gone, await this.functionBackend.liveFunctions(namespace));
    // A deletion under the same key that arrived meanwhile (re-created, deleted again) stays pending.
    if (this.gone.get(key) === gone) this.gone.delete(key);
  }

  async reconcileFunction(key: string): Promise<void> {
    if (this.o.packages) {
      // status.build first: the reconcile's Ready then says what the build says.
      const [namespace, name] = splitKey(key);
      const parsed = FunctionSchema.safeParse((await this.functionBackend.read(namespace, name))?.fn);
      if (parsed.success) await this.o.packages.observe(parsed.data);
      else this.o.packages.forget(key);
    }
    await this.functionReconciler.reconcile(key);
  }

  /** A package build moved: the Function and its revisions look again (their Ready, their workers). */
  async packageChanged(namespace: string, fn: string): Promise<void> {
    this.functions.add(objectKey(namespace, fn));
    for (const r of await this.functionBackend.revisionsOf(namespace, fn)) this.revisions.add(objectKey(namespace, r.metadata.name));
  }

  async reconcileEnvironment(key: string): Promise<void> {
    await this.environmentReconciler.reconcile(key);
  }

  async reconcileRevision(key: string): Promise<void> {
    await this.revisionReconciler.reconcile(key);
  }

  /** Scoped state credentials for a stateful function (deploy env or specialize body). */
  credentials(fn: OrreryFunction): StateCredentials | undefined {
    return stateCredentials(fn, this.o, this.cache.values('Function'));
  }
}

