import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type Condition,
  EnvironmentSchema,
  FunctionSchema,
  GROUP_VERSION,
  type Environment,
  type OrreryFunction,
  type Revision,
  RevisionSchema,
  type StateCredentials,
} from '@orrery/spec';
import { Autoscaler } from '../../autoscaler/autoscaler.ts';
import { createAutoscalerHandler } from '../../autoscaler/autoscaler-http.ts';
import type { KpaDecision } from '../../autoscaler/kpa-decider.ts';
import type { KpaDefaults } from '../../autoscaler/kpa-settings.ts';
import { FunctionReconciler } from '../../function/function-reconciler.ts';
import type { RevisionGcSettings } from '../../function/revision-collection.ts';
import { revisionWanted } from '../../function/revision-wanted.ts';
import { kindQueue } from '../../queue/kind-queue.ts';
import { splitKey } from '../../queue/object-key.ts';
import type { WorkQueue } from '../../queue/work-queue.ts';
import { keyspaceNeighbours } from '../../reconcile/keyspace-neighbours.ts';
import { conditionTrue, setCondition } from '../../reconcile/conditions.ts';
import { revisionStatus } from '../../reconcile/revision-status.ts';
import { withReadyProgress } from '../../reconcile/kstatus-conditions.ts';
import { environmentStatus } from '../../reconcile/environment-status.ts';
import { stateCredentials } from '../../reconcile/state-credentials.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';
import { statusChanged } from '../../reconcile/status-changed.ts';
import { revisionEvents } from '../../reconcile/status-events.ts';
import { type EventRecorder, eventTarget } from '../../events/event-recorder.ts';
import type { OperatorMetrics } from '../../metrics/operator-metrics.ts';
import { createSpecializeHandler } from '../../pool-executor/specialize-http.ts';
import type { RevisionWorkers } from '../../reconcile/revision-workers.ts';
import { Informer, cacheKey } from './informer.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { KubeFunctionBackend } from './kube-function-backend.ts';
import { KubernetesPoolExecutor, type KubernetesPoolExecutorOptions } from './kube-pool-executor.ts';
import { parsed } from './parsed-object.ts';
import { FIELD_MANAGER, REVISION_LABEL, childName } from './render/labels.ts';
import { apiErrorText } from './api-error-text.ts';
import { RECONCILED, reconcileFailure, withFailure, withSuccess } from './reconcile-failure.ts';
import { deploymentFailure } from './deployment-failure.ts';
import { renderPoolChildren } from './render/pool.ts';
import { renderRevisionChildren, renderServiceAccount } from './render/revision-children.ts';

export interface KubernetesOperatorOptions {
  client: KubeClient;
  /** Watch one namespace; all namespaces when absent. */
  namespace?: string;
  masterKey?: Buffer;
  stateUrl?: string;
  routerUrl?: string;
  /** Image of the function workers when an Environment does not name one (`--runtime-image`). */
  runtimeImage?: string;
  /** orrery-registry URLs every worker registers in (`--registry-url`): how routers find workers. */
  registryUrls?: string[];
  /** Mints each revision's registration credential (`--registry-master-key-file`): a Secret for deploy workers, the specialize body for pool pods. */
  registrationCredential?: RegistrationCredentials;
  /** Platform-wide KPA defaults (`--autoscaler-*` flags); the KPA scales deploy and pool revisions. */
  kpa?: KpaDefaults;
  /** The pool executor of each term (specialized pool pods); `idleTimeoutMs` defaults to 120 s. */
  pool?: Partial<Pick<KubernetesPoolExecutorOptions, 'idleTimeoutMs' | 'podAddress' | 'readyWaitMs' | 'specializeTimeoutMs'>>;
  /** External cleanup for policy `delete` (statesvc admin call); absent = nothing to clean. */
  deleteKeyspace?: (namespace: string, keyspace: string) => Promise<void>;
  /** Events on Functions and Revisions; default the client's recorder (core v1 Events). */
  events?: EventRecorder;
  /** Reconcile counts, durations, queue depths and KPA decisions (GET /metrics); kept across terms. */
  metrics?: OperatorMetrics;
  /** Deploy revisions: seconds without rollout progress before the revision fails (Deployment progressDeadlineSeconds; Kubernetes' 600 when absent). */
  progressDeadlineSeconds?: number;
  /** Revision garbage collection where a Function says nothing (`--revision-gc-keep`, `--revision-gc-min-age`). */
  revisionGc?: RevisionGcSettings;
  /** OTEL_* for deploy and pool workers (render/revision-children.ts, render/pool.ts workerTraceEnv). */
  workerTraceEnv?: Record<string, string>;
  log?: (msg: string) => void;
  now?: () => Date;
}

/**
 * The Function/Revision/Environment reconcilers on Kubernetes: the shared Function reconciler
 * (function/function-reconciler.ts) over the informer caches (kube-function-backend.ts), revisions
 * run as Deployments or specialized pool pods. Informers feed keyed work queues; every reconcile
 * reads the informer caches and converges with server-side apply, so missed or repeated events
 * are harmless. Children carry owner references: deleting a Function lets the garbage collector
 * remove its Revisions and their Deployments, Services, ConfigMaps, Secrets.
 */
export class KubernetesFunctionOperator {
  readonly functions: Informer;
  readonly revisions: Informer;
  readonly environments: Informer;
  readonly deployments: Informer;
  readonly functionQueue: WorkQueue;
  readonly revisionQueue: WorkQueue;
  readonly environmentQueue: WorkQueue;
  /** The KPA of this term: fed by the routers' stats and pokes (`handleAutoscaler`). */
  readonly autoscaler: Autoscaler;
  /** `POST /v1/autoscaler/stats|poke` of this term (main-kubernetes routes leader traffic here). */
  readonly handleAutoscaler: ReturnType<typeof createAutoscalerHandler>;
  /** Fission's poolmgr of this term: claims warm pool pods for cold pool-executor revisions. */
  readonly pool: KubernetesPoolExecutor;
  /** `POST /v1/executor/specialize` of this term (the routers' cold path for pool revisions). */
  readonly handleSpecialize: ReturnType<typeof createSpecializeHandler>;
  private readonly log: (msg: string) => void;
  private readonly now: () => Date;
  /** Each Function as its last event showed it: the keyspace it held before a change. */
  private readonly lastSeen = new Map<string, KubeObject>();
  private readonly functionBackend: KubeFunctionBackend;
  private readonly functionReconciler: FunctionReconciler;
  private readonly events: EventRecorder;
  /**
   * The status this term last wrote per object: the informer may not show it yet, and an Event
   * is the change from the status written before (a lagging cache would report it twice).
   */
  private readonly writtenRevisions = new Map<string, NonNullable<Revision['status']>>();
  /** `Kind/namespace/name` → the reason of the Reconciled=False this process wrote. */
  private readonly recordedFailures = new Map<string, string>();

  constructor(private readonly o: KubernetesOperatorOptions) {
    this.log = o.log ?? (() => {});
    this.now = o.now ?? (() => new Date());
    this.events = o.events ?? o.client.events;
    if (o.metrics) this.events.observeWith(o.metrics);
    const inf = (apiVersion: string, kind: string, labelSelector?: string) =>
      new Informer(o.client, { apiVersion, kind, namespace: o.namespace, labelSelector, log: this.log });
    this.functions = inf(GROUP_VERSION, 'Function');
    this.revisions = inf(GROUP_VERSION, 'Revision');
    this.environments = inf(GROUP_VERSION, 'Environment');
    this.deployments = inf('apps/v1', 'Deployment', `app.kubernetes.io/managed-by=${FIELD_MANAGER}`);
    const onError = (kind: 'Function' | 'Revision' | 'Environment') => (key: string, err: unknown, attempt: number) => {
      this.log(`reconcile ${kind} ${key} failed (attempt ${attempt}): ${apiErrorText(err)}`);
      void this.recordFailure(kind, key, err);
    };
    this.functionQueue = kindQueue('Function', (k) => this.reconcileFunction(k), { onError: onError('Function'), held: true }, o.metrics);
    this.revisionQueue = kindQueue('Revision', (k) => this.reconcileRevision(k), { onError: onError('Revision'), concurrency: 4, held: true }, o.metrics);
    this.environmentQueue = kindQueue('Environment', (k) => this.reconcileEnvironment(k), { onError: onError('Environment'), held: true }, o.metrics);
    this.functionBackend = new KubeFunctionBackend({
      client: o.client,
      functions: this.functions,
      revisions: this.revisions,
      environments: this.environments,
      settle: (key, status) => ({ ...status, conditions: withSuccess(status.conditions, this.now(), this.recordedFailure(`Function/${key}`, status.conditions)) }),
    });
    this.functionReconciler = new FunctionReconciler({
      backend: this.functionBackend,
      routerUrl: o.routerUrl,
      deleteKeyspace: o.deleteKeyspace,
      revisionChanged: (key) => this.revisionQueue.add(key),
      events: this.events,
      log: this.log,
      now: this.now,
      revisionGc: o.revisionGc,
    });
    this.pool = new KubernetesPoolExecutor({
      client: o.client,
      namespace: o.namespace,
      idleTimeoutMs: o.pool?.idleTimeoutMs ?? 120_000,
      podAddress: o.pool?.podAddress,
      readyWaitMs: o.pool?.readyWaitMs,
      specializeTimeoutMs: o.pool?.specializeTimeoutMs,
      registrationCredential: o.registrationCredential,
      log: this.log,
    });
    this.autoscaler = new Autoscaler({
      defaults: o.kpa,
      // A revision is either deploy (ready replicas as the Deployment controller reports them, from
      // the informer's cached status) or pool (specialized pods that finished loading its code).
      readyOf: (key) => {
        const [namespace, name] = splitKey(key);
        const dep = this.deployments.get(namespace, childName(name, 'deployment'));
        return Number((dep?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0) + this.pool.readySpecialized(key);
      },
      onChange: (key) => this.revisionQueue.add(key),
      // Router demand keeps specialized pool pods from being reaped as idle.
      onActivity: (key) => this.pool.touch(key),
      onDecision: o.metrics?.decided,
    });
    o.metrics?.watchAutoscaler(this.autoscaler);
    // No `readyAddresses`: routers find new workers through the registry, so a poke is answered at once.
    this.handleAutoscaler = createAutoscalerHandler(this.autoscaler);
    this.handleSpecialize = createSpecializeHandler({
      // The informer caches: no API-server read on a cold request's path.
      view: {
        revision: async (ns, name) => parsed<Revision>(RevisionSchema, this.revisions.get(ns, name)),
        fn: async (ns, name) => parsed<OrreryFunction>(FunctionSchema, this.functions.get(ns, name)),
      },
      pool: this.pool,
      credentials: (fn) => this.stateToken(fn),
    });

    this.functions.on((t, f) => {
      const key = cacheKey(f);
      const before = this.lastSeen.get(key);
      if (t === 'DELETED') this.lastSeen.delete(key);
      else this.lastSeen.set(key, f);
      this.functionQueue.add(key);
      // One keyspace, one owner: the others declaring the keyspace it held or now declares may
      // have to wait for it or may proceed now (its deletion, its move to another keyspace).
      for (const k of keyspaceNeighbours(before ? [before, f] : [f], this.functions.list())) this.functionQueue.add(k);
    });
    this.revisions.on((_t, r) => {
      this.revisionQueue.add(cacheKey(r));
      const fn = (r.spec as { function?: string } | undefined)?.function;
      if (fn) this.functionQueue.add(`${r.metadata.namespace}/${fn}`);
    });
    this.environments.on((_t, e) => {
      this.environmentQueue.add(cacheKey(e));
      // Functions on it: a rule that reads the Environment may now hold or fail for them.
      for (const f of this.functions.list()) {
        if (f.metadata.namespace === e.metadata.namespace && (f.spec as { template?: { environment?: string } } | undefined)?.template?.environment === e.metadata.name) this.functionQueue.add(cacheKey(f));
      }
    });
    this.deployments.on((_t, d) => {
      const rev = d.metadata.labels?.[REVISION_LABEL];
      if (rev) this.revisionQueue.add(`${d.metadata.namespace}/${rev}`);
      const env = d.metadata.labels?.['orrery.dev/environment'];
      if (env) this.environmentQueue.add(`${d.metadata.namespace}/${env}`);
    });
    // A specialized pod became ready or went away: its revision's readiness and scale changed.
    this.pool.pods.on((_t, p) => {
      const rev = p.metadata.labels?.[REVISION_LABEL];
      if (rev) this.revisionQueue.add(`${p.metadata.namespace}/${rev}`);
    });
  }

  /** The leader-only control endpoints of this term; false for paths it does not serve. */
  async handleControl(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    return (await this.handleAutoscaler(req, res)) || this.handleSpecialize(req, res);
  }

  async start(): Promise<void> {
    const all = [this.functions, this.revisions, this.environments, this.deployments];
    for (const i of all) i.start();
    this.autoscaler.start();
    await Promise.all([...all.map((i) => i.hasSynced()), this.pool.start()]);
    // Only now: a Revision reconciled before the Environments listed would render its pods
    // without the Environment's resources and roll every revision on each leader change.
    for (const q of [this.environmentQueue, this.functionQueue, this.revisionQueue]) q.release();
  }

  async stop(): Promise<void> {
    this.autoscaler.stop();
    for (const i of [this.functions, this.revisions, this.environments, this.deployments]) i.stop();
    for (const q of [this.functionQueue, this.revisionQueue, this.environmentQueue]) q.stop();
    // Specialized pods keep serving; the next leader's executor adopts them by their labels.
    await this.pool.stop();
  }

  /**
   * A failed reconcile shows on the object (condition Reconciled=False with the API server's
   * words), not only in the log; the next successful reconcile marks it resolved.
   */
  private async recordFailure(kind: 'Function' | 'Revision' | 'Environment', key: string, err: unknown): Promise<void> {
    const [namespace, name] = splitKey(key);
    const informer = kind === 'Function' ? this.functions : kind === 'Revision' ? this.revisions : this.environments;
    const cur = informer.get(namespace, name);
    if (!cur) return;
    this.events.record(eventTarget(GROUP_VERSION, kind, cur), { reason: 'ReconcileFailed', message: reconcileFailure(err).message });
    const prev = (cur.status ?? {}) as { conditions?: Condition[] };
    const status = { ...prev, conditions: withFailure(prev.conditions, err, this.now()) };
    if (!statusChanged(status, prev)) return;
    try {
      await this.o.client.applyStatus(kind, namespace, name, status);
      this.recordedFailures.set(`${kind}/${key}`, reconcileFailure(err).reason);
    } catch (e) {
      this.log(`recording the failure on ${kind} ${key} failed too: ${apiErrorText(e)}`);
    }
  }

  /** The failure this process recorded on an object, until the object read shows it resolved. */
  private recordedFailure(kindKey: string, conditions: readonly Condition[] | undefined): string | undefined {
    if (conditions?.some((c) => c.type === RECONCILED && c.status === 'True')) this.recordedFailures.delete(kindKey);
    return this.recordedFailures.get(kindKey);
  }

  async reconcileFunction(key: string): Promise<void> {
    await this.functionReconciler.reconcile(key);
  }

  async reconcileRevision(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const rev = parsed<Revision>(RevisionSchema, this.revisions.get(namespace, name));
    if (!rev) {
      this.autoscaler.forget(key); // its Deployment goes with it through garbage collection
      this.writtenRevisions.delete(key);
      return;
    }
    const fnRaw = this.functions.get(namespace, rev.spec.function);
    const fn = parsed<OrreryFunction>(FunctionSchema, fnRaw);
    if (!fn || fnRaw?.metadata.deletionTimestamp) {
      this.autoscaler.forget(key);
      return;
    }
    const t = rev.spec.template;
    const environment = parsed<Environment>(EnvironmentSchema, this.environments.get(namespace, t.environment));
    // The token Secret only for the keyspace's owner (the Function reconcile, which judged on the
    // API server's Functions, creates no revision for another declarer).
    const state = this.stateToken(fn);
    if (fn.spec.state && !state && this.o.stateUrl) {
      // A token it got before its keyspace's owner showed up (two creates racing through
      // admission in one second) goes: the pods roll without it.
      await this.o.client.delete('v1', 'Secret', namespace, childName(name, 'state'));
    }
    const children = renderRevisionChildren({
      fn, revision: rev, environment, state, runtimeImage: this.o.runtimeImage, registryUrls: this.o.registryUrls,
      registration: this.o.registrationCredential?.(rev), progressDeadlineSeconds: this.o.progressDeadlineSeconds, workerTraceEnv: this.o.workerTraceEnv,
    });
    if (t.executor !== 'pool') children.unshift(renderServiceAccount(fn));
    for (const child of children) await this.o.client.apply(child);

    const { routable, wanted } = revisionWanted(fn, await this.functionBackend.revisionsOf(namespace, fn.metadata.name), name);
    let workers: RevisionWorkers;
    let decision: KpaDecision | undefined;
    let poolCondition: { status: 'True' | 'Unknown'; reason: string; message: string } | undefined;
    if (t.executor === 'pool') {
      // The KPA drives pooled revisions through the pool executor: at zero the last specialized
      // pod goes when idle; the first request specializes one through /v1/executor/specialize.
      if (wanted) {
        decision = this.autoscaler.desired(key, rev, routable);
        this.pool.scale(rev, decision.desired, state);
      } else {
        this.autoscaler.forget(key);
        if (this.pool.specializedCount(key)) await this.pool.release(key);
      }
      const ready = this.pool.readySpecialized(key);
      workers = { desired: decision?.desired ?? 0, actual: this.pool.specializedCount(key), ready, restarts: 0 };
      const warm = this.pool.warmCounts()[`${namespace}/${t.environment}`] ?? 0;
      if (ready === 0 && wanted) {
        // Pool revisions serve on demand: ready once the pool has warm pods (and stays so, as a
        // deploy revision scaled to zero does, while the pool refills after a claim).
        poolCondition =
          warm > 0 || conditionTrue(rev.status?.conditions, 'Ready')
            ? { status: 'True', reason: 'PoolExecutor', message: `served by specialized pool pods on demand (${warm} warm in environment ${t.environment})` }
            : { status: 'Unknown', reason: 'PoolWarming', message: `waiting for warm pods of environment ${t.environment}` };
      }
    } else {
      // The KPA decides (initial scale, min/max, scale to zero); revisions nobody can reach run nothing.
      if (wanted) decision = this.autoscaler.desired(key, rev, routable);
      else this.autoscaler.forget(key);
      const desired = decision?.desired ?? 0;
      const deploymentName = childName(name, 'deployment');
      const dep = this.deployments.get(namespace, deploymentName);
      const specReplicas = (dep?.spec as { replicas?: number } | undefined)?.replicas;
      if (specReplicas !== desired) await this.o.client.scaleDeployment(namespace, deploymentName, desired);
      const st = (dep?.status ?? {}) as { replicas?: number; readyReplicas?: number };
      workers = { desired, actual: st.replicas ?? 0, ready: specReplicas === desired ? (st.readyReplicas ?? 0) : 0, restarts: 0, failed: deploymentFailure(dep) };
    }
    const status = revisionStatus(rev, workers, this.now());
    if (poolCondition) status.conditions = withReadyProgress(setCondition(status.conditions, { type: 'Ready', ...poolCondition }, this.now()), this.now());
    status.conditions = withSuccess(status.conditions, this.now(), this.recordedFailure(`Revision/${key}`, status.conditions));
    if (decision) {
      status.autoscalerMode = decision.mode;
      status.lastDecision = decision.reason;
    }
    if (statusChanged(status, rev.status)) {
      await this.o.client.applyStatus('Revision', namespace, name, status);
      const before = this.writtenRevisions.get(key) ?? rev.status;
      this.writtenRevisions.set(key, status);
      this.events.record(eventTarget(GROUP_VERSION, 'Revision', rev), ...revisionEvents(before, status, decision?.reason));
    }
  }

  async reconcileEnvironment(key: string): Promise<void> {
    const [namespace, name] = splitKey(key);
    const env = parsed<Environment>(EnvironmentSchema, this.environments.get(namespace, name));
    if (!env) return;
    // The token Secret before the pool: pool pods mount it and do not start without it.
    await this.pool.ensureSpecializeSecret(env);
    for (const child of renderPoolChildren(env, this.o.runtimeImage, { registryUrls: this.o.registryUrls, stateUrl: this.o.stateUrl, workerTraceEnv: this.o.workerTraceEnv })) await this.o.client.apply(child);
    const pool = this.deployments.get(namespace, childName('orrery-pool', name));
    const ready = Number((pool?.status as { readyReplicas?: number } | undefined)?.readyReplicas ?? 0);
    // The same status as the local backend (Ready once accepted), so GitOps health checks read it.
    const status = environmentStatus(env, ready, this.now());
    status.conditions = withSuccess(status.conditions, this.now(), this.recordedFailure(`Environment/${key}`, status.conditions));
    if (statusChanged(status, env.status)) {
      await this.o.client.applyStatus('Environment', namespace, name, status);
    }
  }

  /** Judged on the informer's Functions: no API-server read on a cold request's path. */
  private stateToken(fn: OrreryFunction): StateCredentials | undefined {
    return stateCredentials(fn, this.o, this.functions.list());
  }

}

