/**
 * Components, the second wiring step of the local backend: every part of the local operator, built
 * in dependency order and not yet started (no reconcile, no timer, no listener). The worker side
 * calls back into the Function operator (a worker became ready, the KPA decided) only once workers
 * run, after main.ts has started it.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { readAdminTokenFile } from '@orrery/api';
import { readMasterKeyFile } from '@orrery/auth';
import { connect } from '@orrery/db';
import { registerSecret } from '@orrery/log';
import { createLocalStore } from '@orrery/store';
import { Autoscaler } from '../../../autoscaler/autoscaler.ts';
import { createScaleUpNow } from '../../../autoscaler/scale-up-now.ts';
import { EventRecorder } from '../../../events/event-recorder.ts';
import { LocalEventLog } from '../../../events/local-event-log.ts';
import { createPlatformApi } from '../../../http/platform-api.ts';
import { ensureStoreToken } from '../../../http/store-token-file.ts';
import { createKeyspaceDeleter } from '../../../keyspace/delete-keyspace.ts';
import { OperatorMetrics } from '../../../metrics/operator-metrics.ts';
import { createExecutorView } from '../../../pool-executor/executor-view.ts';
import { splitKey } from '../../../queue/object-key.ts';
import { registrationCredentials } from '../../../reconcile/registration-credential.ts';
import { RegistryClusterReconciler } from '../../../registry-cluster/registry-cluster-reconciler.ts';
import { StateSyncReconciler } from '../../../state-sync/state-sync-reconciler.ts';
import { exitStartFailed, exitWithUsage } from '../../../wiring/command-line.ts';
import { listeningAddress } from '../../../wiring/listening-address.ts';
import { LocalBackend } from '../local-backend.ts';
import { WorkerStartSlots } from '../worker-start-slots.ts';
import { DomainReconciler } from '../../../domain/domain-reconciler.ts';
import { LocalDomainBackend } from '../local-domain-backend.ts';
import { LocalObjectCache } from '../local-object-cache.ts';
import { LocalFunctionOperator } from '../local-function-operator.ts';
import { LocalPoolExecutor } from '../local-pool-executor.ts';
import { LocalRegistryClusterBackend } from '../local-registry-cluster-backend.ts';
import { LocalRouterFleet, type ReplicaSet } from '../local-router-fleet.ts';
import { LocalStateSyncBackend } from '../local-state-sync-backend.ts';
import { ObservedReplicaSet } from '../observed-replica-set.ts';
import { runtimeCommand } from '../runtime-bundle.ts';
import { localRuntimeForImage } from '../local-runtime-for-image.ts';
import { pythonRuntimeCommand } from '../python-runtime-command.ts';
import { WorkerIsolation } from '../worker-isolation.ts';
import { CronScheduler } from '../../../trigger/cron/cron-scheduler.ts';
import { LocalTriggerStatus } from '../local-trigger-status.ts';
import { LocalBuildStatus } from '../local-build-status.ts';
import { LocalPackageBuilds } from '../local-package-builds.ts';
import { localTriggerInvoker } from '../local-trigger-invoker.ts';
import { QueueTriggers } from '../../../trigger/queue/queue-triggers.ts';
import { LOCAL_USAGE, type LocalConfig } from './local-config.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export type LocalComponents = Awaited<ReturnType<typeof createLocalComponents>>;

export async function createLocalComponents(config: LocalConfig, log: Log, warn: Log) {
  const { dataDir } = config;
  mkdirSync(dataDir, { recursive: true });
  const db = connect({ url: config.databaseUrl, dataDir: join(dataDir, 'store') });
  const store = await createLocalStore(db);
  // The store and the control endpoints always need a token: workers (other processes on this
  // machine) share the loopback interface, so "from loopback" proves nothing.
  const storeTokenFile = config.storeTokenFile ?? ensureStoreToken(dataDir, log);
  const storeToken = readFileSync(storeTokenFile, 'utf8').trim();
  registerSecret(storeToken);
  const isolation = (() => {
    try {
      return WorkerIsolation.create({ dataDir, mode: config.isolation.mode, uidRange: config.isolation.uidRange, log });
    } catch (err) {
      return exitWithUsage((err as Error).message, LOCAL_USAGE);
    }
  })();
  const masterKey = config.masterKeyFile ? readMasterKeyFile(config.masterKeyFile) : undefined;
  registerSecret(masterKey?.toString('hex'));
  // Workers get registration credentials derived from the registry master key (HKDF, per revision):
  // without it they cannot register under orrery.functions. and routers find them only in the endpoints file.
  const registryMasterKey = config.registryAuth.masterKeyFile ? readMasterKeyFile(config.registryAuth.masterKeyFile) : undefined;
  registerSecret(registryMasterKey?.toString('hex'));
  const registrationCredential = registrationCredentials(registryMasterKey);
  // Where workers register. One array on purpose: the backend and the pool read it at each worker
  // start, and it follows the platform RegistryCluster's registry API as its endpoint changes.
  const registryUrls = [...config.registryUrls];

  // GET /metrics (public, like every component's: counts and names, no secrets; see docs/security.md),
  // and Events in a bounded in-memory log behind GET /v1/events (the store has no Event kind).
  const metrics = new OperatorMetrics();
  const eventLog = new LocalEventLog();
  const events = new EventRecorder(eventLog, { log: (msg) => log(msg) });
  events.observeWith(metrics);

  // Plain node on a bundled runtime when possible: workers start ~3× faster than through tsx.
  const runtime = await runtimeCommand((msg) => log(msg));
  // The cold path reads Revisions, Functions and Environments from memory, not from the database.
  const executorView = createExecutorView(store, { onError: (err) => warn(`executor view: ${(err as Error).message}`) });
  // The Environment's image picks the runtime (docs/python.md): Node.js, or python3 with apps/runtime-python.
  const runtimes = { node: runtime, python: pythonRuntimeCommand() };
  if ('unavailable' in runtimes.python) log(`Python runtime unavailable (orrery/runtime-python Environments will not be Ready): ${runtimes.python.unavailable}`);
  else log(`Python runtime: ${runtimes.python.command} ${runtimes.python.args.join(' ')}`);
  const runtimeOf = async (namespace: string, environment: string) => localRuntimeForImage((await executorView.environment(namespace, environment))?.spec.image, runtimes);
  // The worker side and the Function operator call each other: the callbacks below name the
  // operator (and the pool, the scale-up) built further down; none runs before main.ts starts them.
  // Packages with dependencies (docs/packages.md): built once per archive and builder under <data-dir>/packages/.
  const packages = new LocalPackageBuilds({
    dataDir,
    builtRoot: isolation.enabled ? join(isolation.workersRoot, 'packages') : undefined,
    status: new LocalBuildStatus(store),
    runtimeOf,
    python: 'unavailable' in runtimes.python ? undefined : runtimes.python.command,
    timeoutMs: config.packages.buildTimeoutMs,
    maxArchiveBytes: config.packages.maxArchiveBytes,
    changed: (namespace, fn) => void operator.packageChanged(namespace, fn).catch((err: unknown) => warn(`package build of ${namespace}/${fn}: ${(err as Error).message}`)),
    log,
  });
  // One start queue for deploy and pool workers: a burst of starts must not starve the workers serving.
  const startSlots = new WorkerStartSlots(config.workerStartConcurrency);
  const backend = new LocalBackend({
    runtimeCommand: runtime,
    startSlots,
    dataDir,
    registryUrls,
    endpointsFile: config.endpointsFile,
    onChange: (key) => operator.workerChanged(key),
    extraEndpoints: () => pool.endpoints(),
    registrationCredential,
    isolation,
    envPassthrough: config.envPassthrough,
    runtimeFor: (rev) => runtimeOf(rev.metadata.namespace, rev.spec.template.environment),
    packageOf: (rev) => packages.builtPackage(rev),
  });
  const pool: LocalPoolExecutor = new LocalPoolExecutor({
    runtimeCommand: runtime,
    startSlots,
    dataDir,
    registryUrls,
    stateUrl: config.stateUrl,
    poolSizeOf: async (ns, env) => (await executorView.environment(ns, env))?.spec.poolSize ?? config.poolSize,
    idleTimeoutMs: config.poolIdleTimeoutMs,
    onChange: () => backend.publish(),
    // The revision's reconcile calls pool.scale with its decided scale (minScale after a cold start, a lost worker replaced).
    reconcileNow: (key) => operator.workerChanged(key),
    registrationCredential,
    isolation,
    envPassthrough: config.envPassthrough,
    runtimeFor: runtimeOf,
    // Pool workers load a package from the folder deploy workers get, once its build succeeded.
    packages: { gate: (rev) => packages.gate(rev), built: (rev) => packages.builtPackage(rev) },
    log,
  });
  // Rewrite the endpoints file now (empty until workers run): a previous run's file would send
  // routers to its dead workers, whose ports other processes may have taken since.
  backend.publish();
  const autoscaler = new Autoscaler({
    defaults: config.kpa,
    // A revision is either deploy (backend workers) or pool (specialized workers).
    readyOf: (key) => backend.observe(...splitKey(key)).ready + pool.readySpecialized(key),
    onChange: (key) => {
      void scaleUpNow(key).catch((err: unknown) => warn(`scale up ${key}: ${(err as Error).message}`));
      operator.workerChanged(key);
    },
    onActivity: (key) => pool.touch(key),
    onDecision: metrics.decided,
    // Messages waiting for a Function's queue triggers count as demand (scale up, wake, stay up).
    backlogOf: (key, fn) => queueTriggers.backlogOf(key, fn),
  });
  metrics.watchAutoscaler(autoscaler);
  metrics.watchWorkerStarts(startSlots);
  // A raised decision starts workers at once; the reconcile queue follows for the rest.
  const scaleUpNow = createScaleUpNow({
    autoscaler,
    backend,
    revision: (ns, name) => executorView.revision(ns, name),
    fn: (ns, name) => executorView.fn(ns, name),
    credentials: (fn) => operator.credentials(fn),
  });
  // Custom domains (docs/domains.md): certificates from the local secret files, checked, handed to
  // the routers as <data-dir>/router-certs/<host>.pem; status.domains through the Function reconciler.
  // The Functions, Revisions and Environments the operator's watches keep (its reconcilers and the domain pass read them).
  const cache = new LocalObjectCache();
  const domains = new DomainReconciler({
    backend: new LocalDomainBackend({ store, dataDir, cache }),
    functionChanged: (key) => operator.functions.add(key),
    now: () => new Date(),
    log,
  });
  const operator: LocalFunctionOperator = new LocalFunctionOperator({
    cache,
    domains,
    packages,
    autoscaler,
    pool: {
      keepWarm: (rev) => void pool.ensurePool(rev.metadata.namespace, rev.spec.template.environment).catch((err: unknown) => warn(`pool: ${(err as Error).message}`)),
      release: (key) => pool.release(key),
      readyWorkers: (namespace, environment) => pool.readyPoolWorkers(namespace, environment),
      scale: (rev, desired, credentials) => pool.scale(rev, desired, credentials),
      runtimeProblem: async (namespace, environment) => {
        const r = await runtimeOf(namespace, environment);
        return r.ok ? undefined : { reason: r.reason, message: r.message };
      },
    },
    store,
    backend,
    masterKey,
    stateUrl: config.stateUrl,
    // spec.state.onDelete: delete — statesvc's signed admin call (needs its URL and the master key).
    deleteKeyspace: config.stateUrl && masterKey ? createKeyspaceDeleter({ stateUrl: config.stateUrl, masterKey }) : undefined,
    routerUrl: config.routerUrl,
    resyncMs: config.resyncMs,
    revisionGc: config.revisionGc,
    events,
    metrics,
    log,
  });

  // RegistryCluster: etcd members + orrery-registry as child processes (docs/registry-clusters.md).
  const { platformCluster } = config;
  const registryClusters = new RegistryClusterReconciler({
    store,
    backend: new LocalRegistryClusterBackend({
      dataDir,
      apiPorts: platformCluster?.apiPort ? { [platformCluster.key]: platformCluster.apiPort } : undefined,
      registryAuth: config.registryAuth,
    }),
    log,
    events,
    metrics,
    // The backend and the pool read registryUrls at each worker start: follow the platform cluster's API.
    onEndpoint: (key, url) => {
      if (!platformCluster || key !== platformCluster.key || !url) return;
      registryUrls.splice(0, registryUrls.length, url);
      log('workers register at the platform registry', { url });
    },
  });

  // The control server exists (not yet listening) before the routers a StateSync runs: they are
  // given its address, known once it listens.
  const server = createServer();
  // StateSync: routers the operator runs (restarted with the rendered flags), or routers run elsewhere (observed).
  const syncReplicas: ReplicaSet = config.observedRouterAdminUrls.length
    ? new ObservedReplicaSet(config.observedRouterAdminUrls)
    : new LocalRouterFleet({
        count: config.stateSyncRouters,
        baseArgs: () => {
          const self = `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${listeningAddress(server).port}`;
          return ['--store-url', self, '--autoscaler-url', self, '--store-token-file', storeTokenFile, ...(config.endpointsFile ? ['--endpoints-file', config.endpointsFile] : [])];
        },
        log,
      });
  // A rollout restarts the routers one at a time: stop waits for it.
  const stateSyncs = new StateSyncReconciler({ store, backend: new LocalStateSyncBackend({ dataDir, replicas: syncReplicas, log }), stopTimeoutMs: 60_000, log });

  // Cron triggers (docs/triggers.md): this operator is the only one, so it runs every schedule; calls
  // go through the router (--trigger-url, --router-url, else a router it runs itself).
  const cron = new CronScheduler({
    store,
    status: new LocalTriggerStatus(store),
    invoker: localTriggerInvoker({ triggerUrl: config.triggers.url, routerUrl: config.routerUrl, replicas: () => syncReplicas.replicas() }),
    events,
    log,
  });
  // Queue triggers (docs/triggers.md "Queue"): NATS JetStream messages delivered through the router;
  // without --queue-url each trigger's status says NoBroker and nothing else happens.
  const queueTriggers: QueueTriggers = new QueueTriggers({
    store,
    statusStore: new LocalTriggerStatus(store),
    invoker: localTriggerInvoker({ triggerUrl: config.triggers.url, routerUrl: config.routerUrl, replicas: () => syncReplicas.replicas() }),
    broker: config.queue,
    events,
    log,
    warn,
  });

  // The admin API (console, CLI, automation) over the same store and database; see docs/api.md.
  const adminToken = config.adminTokenFile ? readAdminTokenFile(config.adminTokenFile) : undefined;
  registerSecret(adminToken);
  const platformApi = await createPlatformApi({
    store,
    db,
    storeToken,
    adminToken,
    usersFile: config.usersFile,
    trustedProxies: config.trustedProxies,
    statesvc: config.stateUrl ? { url: config.stateUrl, masterKey } : undefined,
    // Routers named on the command line plus the ones a StateSync makes this operator run.
    routerAdminUrls: () => [...new Set([...config.routerAdminUrls, ...syncReplicas.replicas().map((r) => r.adminUrl).filter((u): u is string => !!u)])],
    log,
  }).catch((err: unknown) => exitStartFailed((err as Error).message));

  return { db, store, storeToken, isolation, masterKey, metrics, eventLog, executorView, backend, pool, autoscaler, operator, registryClusters, server, syncReplicas, stateSyncs, platformApi, cron, queueTriggers };
}
