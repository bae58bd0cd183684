import type { IncomingMessage, ServerResponse } from 'node:http';
import { type Condition, FUNCTION_LABEL, FunctionSchema, GROUP_VERSION, type OrreryFunction, type Revision, RevisionSchema, type StateCredentials } from '@orrery/spec';
import { Autoscaler } from '../../autoscaler/autoscaler.ts';
import { createAutoscalerHandler } from '../../autoscaler/autoscaler-http.ts';
import type { KpaDefaults } from '../../autoscaler/kpa-settings.ts';
import { EnvironmentReconciler } from '../../environment/environment-reconciler.ts';
import { FunctionFamilyEvents } from '../../function/function-family-events.ts';
import { FunctionReconciler } from '../../function/function-reconciler.ts';
import type { RevisionGcSettings } from '../../function/revision-collection.ts';
import { kindQueue } from '../../queue/kind-queue.ts';
import { splitKey } from '../../queue/object-key.ts';
import type { WorkQueue } from '../../queue/work-queue.ts';
import { stateCredentials } from '../../reconcile/state-credentials.ts';
import type { RegistrationCredentials } from '../../reconcile/registration-credential.ts';
import { statusChanged } from '../../reconcile/status-changed.ts';
import { RevisionReconciler } from '../../revision/revision-reconciler.ts';
import { type EventRecorder, eventTarget } from '../../events/event-recorder.ts';
import type { OperatorMetrics } from '../../metrics/operator-metrics.ts';
import { createSpecializeHandler } from '../../pool-executor/specialize-http.ts';
import { DomainReconciler } from '../../domain/domain-reconciler.ts';
import { KubeDomainBackend, TLS_SECRET_SELECTOR } from './kube-domain-backend.ts';
import { Informer } from './informer.ts';
import type { KubeClient } from './kube-client.ts';
import { KubeEnvironmentBackend } from './kube-environment-backend.ts';
import { KubeFunctionBackend } from './kube-function-backend.ts';
import { KubernetesPoolExecutor, type KubernetesPoolExecutorOptions } from './kube-pool-executor.ts';
import { KubeRevisionBackend } from './kube-revision-backend.ts';
import { parsed } from './parsed-object.ts';
import { FIELD_MANAGER, REVISION_LABEL, childName } from './render/labels.ts';
import { apiErrorText } from './api-error-text.ts';
import { RECONCILED, reconcileFailure, withFailure, withSuccess } from './reconcile-failure.ts';
import { withBuildGate } from '../../package/build-gate.ts';
import { DEFAULT_BUILDER_IMAGE, KubePackageBuilds, type PackageBuildSettings } from './package-build/kube-package-builds.ts';
import { DEFAULT_PACKAGE_VOLUME } from './package-build/package-volume.ts';

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
  /** Demand waiting for a revision outside the routers (queue triggers' backlog, Autoscaler `backlogOf`). */
  kpaBacklog?: (key: string, fn: string) => number;
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
  /** `--router-certs-secret`: the router-owned Secret the checked certificates of spec.domains go to (kube-domain-backend.ts). */
  routerCertsSecret?: { namespace: string; name: string };
  /** `--builder-image`, `--package-volume-*`, `--build-timeout`: package builds (package-build/); defaults when absent. */
  packageBuilds?: Partial<PackageBuildSettings>;
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
  /** Secrets of type kubernetes.io/tls: the certificates spec.domains name. */
  readonly tlsSecrets: Informer;
  /** Custom domains: who holds each host, the routers' certificates, status.domains. */
  readonly domains: DomainReconciler;
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
  /** Build Jobs of `source.package` and their outcome in status.build (package-build/). */
  readonly builds: KubePackageBuilds;
  private readonly log: (msg: string) => void;
  private readonly now: () => Date;
  private readonly functionBackend: KubeFunctionBackend;
  private readonly functionReconciler: FunctionReconciler;
  private readonly events: EventRecorder;
  private readonly revisionReconciler: RevisionReconciler;
  private readonly environmentReconciler: EnvironmentReconciler;
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
    this.tlsSecrets = new Informer(o.client, { apiVersion: 'v1', kind: 'Secret', namespace: o.namespace, fieldSelector: TLS_SECRET_SELECTOR, log: this.log });
    const onError = (kind: 'Function' | 'Revision' | 'Environment') => (key: string, err: unknown, attempt: number) => {
      this.log(`reconcile ${kind} ${key} failed (attempt ${attempt}): ${apiErrorText(err)}`);
      void this.recordFailure(kind, key, err);
    };
    this.functionQueue = kindQueue('Function', (k) => this.reconcileFunction(k), { onError: onError('Function'), held: true }, o.metrics);
    this.revisionQueue = kindQueue('Revision', (k) => this.reconcileRevision(k), { onError: onError('Revision'), concurrency: 4, held: true }, o.metrics);
    this.environmentQueue = kindQueue('Environment', (k) => this.reconcileEnvironment(k), { onError: onError('Environment'), held: true }, o.metrics);
    this.builds = new KubePackageBuilds({
      client: o.client,
      namespace: o.namespace,
      functions: this.functions,
      revisions: this.revisions,
      environments: this.environments,
      runtimeImage: o.runtimeImage,
      builderImage: o.packageBuilds?.builderImage ?? DEFAULT_BUILDER_IMAGE,
      volume: o.packageBuilds?.volume ?? DEFAULT_PACKAGE_VOLUME,
      timeoutSeconds: o.packageBuilds?.timeoutSeconds ?? 600,
      changed: (namespace, fn) => {
        this.functionQueue.add(`${namespace}/${fn}`);
        for (const r of this.revisions.list()) if (r.metadata.namespace === namespace && r.metadata.labels?.[FUNCTION_LABEL] === fn) this.revisionQueue.add(`${namespace}/${r.metadata.name}`);
      },
      // Pool Deployments mount the package volume once it exists (kube-environment-backend.ts).
      volumeSeen: (namespace) => {
        for (const e of this.environments.list()) if (e.metadata.namespace === namespace) this.environmentQueue.add(`${namespace}/${e.metadata.name}`);
      },
      log: this.log,
    });
    this.functionBackend = new KubeFunctionBackend({
      client: o.client,
      functions: this.functions,
      revisions: this.revisions,
      environments: this.environments,
      settle: (key, status) => {
        // Ready says Building / BuildFailed while the newest revision's package is not built.
        const built = withBuildGate(status, this.builds.gateOfRevision(splitKey(key)[0], status.latestCreatedRevision), this.now());
        return { ...built, conditions: withSuccess(built.conditions, this.now(), this.recordedFailure(`Function/${key}`, built.conditions)) };
      },
    });
    this.domains = new DomainReconciler({
      backend: new KubeDomainBackend({ client: o.client, functions: this.functions, secrets: this.tlsSecrets, routerSecret: o.routerCertsSecret }),
      functionChanged: (key) => this.functionQueue.add(key),
      now: this.now,
      log: (msg) => this.log(msg),
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
      domains: (fn) => this.domains.statusOf(fn),
    });
    this.pool = new KubernetesPoolExecutor({
      client: o.client,
      namespace: o.namespace,
      idleTimeoutMs: o.pool?.idleTimeoutMs ?? 120_000,
      podAddress: o.pool?.podAddress,
      readyWaitMs: o.pool?.readyWaitMs,
      specializeTimeoutMs: o.pool?.specializeTimeoutMs,
      registrationCredential: o.registrationCredential,
      // Pool pods load a package from the package volume, once built (package-build/).
      packages: { gate: (rev) => this.builds.gate(rev), built: (rev) => this.builds.poolPackage(rev) },
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
      backlogOf: o.kpaBacklog,
    });
    o.metrics?.watchAutoscaler(this.autoscaler);
    this.revisionReconciler = new RevisionReconciler({
      backend: new KubeRevisionBackend({
        ...o,
        functions: this.functions,
        revisions: this.revisions,
        environments: this.environments,
        deployments: this.deployments,
        functionBackend: this.functionBackend,
        pool: this.pool,
        packages: this.builds,
        credentials: (fn) => this.stateToken(fn),
        settle: (key, status) => ({ ...status, conditions: withSuccess(status.conditions, this.now(), this.recordedFailure(`Revision/${key}`, status.conditions)) }),
      }),
      autoscaler: this.autoscaler,
      events: this.events,
      now: this.now,
    });
    this.environmentReconciler = new EnvironmentReconciler({
      backend: new KubeEnvironmentBackend({
        ...o,
        environments: this.environments,
        deployments: this.deployments,
        pool: this.pool,
        settle: (key, status) => ({ ...status, conditions: withSuccess(status.conditions, this.now(), this.recordedFailure(`Environment/${key}`, status.conditions)) }),
      }),
      now: this.now,
    });
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

    const events = new FunctionFamilyEvents({ functions: this.functionQueue, revisions: this.revisionQueue, environments: this.environmentQueue }, () => this.functions.list());
    this.functions.on((t, f) => {
      events.functionChanged(f, t === 'DELETED');
      // A host is claimed cluster-wide: any Function's change may move one.
      this.domains.kick();
    });
    this.revisions.on((_t, r) => events.revisionChanged(r));
    this.environments.on((_t, e) => events.environmentChanged(e));
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
    const all = [this.functions, this.revisions, this.environments, this.deployments, this.tlsSecrets];
    for (const i of all) i.start();
    this.builds.start();
    this.autoscaler.start();
    // Package builds do not hold the rest: until the Jobs are listed (never, where the operator may
    // not list Jobs, e.g. under an older chart's RBAC) only packaged revisions wait (status.build Pending).
    void this.builds.hasSynced();
    await Promise.all([...all.map((i) => i.hasSynced()), this.pool.start()]);
    // After the caches listed: a pass on half a list would move hosts and drop certificates.
    this.domains.start(30_000);
    // Only now: a Revision reconciled before the Environments listed would render its pods
    // without the Environment's resources and roll every revision on each leader change.
    for (const q of [this.environmentQueue, this.functionQueue, this.revisionQueue]) q.release();
  }

  async stop(): Promise<void> {
    this.autoscaler.stop();
    await this.domains.stop();
    for (const i of [this.functions, this.revisions, this.environments, this.deployments, this.tlsSecrets]) i.stop();
    for (const q of [this.functionQueue, this.revisionQueue, this.environmentQueue]) q.stop();
    this.builds.stop();
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
    await this.revisionReconciler.reconcile(key);
  }

  async reconcileEnvironment(key: string): Promise<void> {
    await this.environmentReconciler.reconcile(key);
  }

  /** Judged on the informer's Functions: no API-server read on a cold request's path. */
  private stateToken(fn: OrreryFunction): StateCredentials | undefined {
    return stateCredentials(fn, this.o, this.functions.list());
  }

}

