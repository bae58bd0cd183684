/**
 * orrery-operator: the reconciling control plane on the local backend. Owns the embedded
 * resource store (or opens Postgres), serves it to the other local processes over HTTP,
 * turns Functions into immutable Revisions and runs their workers as child processes.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { mkdirSync, readFileSync } from 'node:fs';
import { ensureStoreToken } from './http/store-token-file.ts';
import { parseArgs } from 'node:util';
import { readMasterKeyFile } from '@orrery/auth';
import { registerSecret, registerUrlSecret } from '@orrery/log';
import { connect } from '@orrery/db';
import { createLocalStore } from '@orrery/store';
import { readAdminTokenFile } from '@orrery/api';
import { startRollups } from './admin-api/start-rollups.ts';
import { LocalBackend } from './backends/local/local-backend.ts';
import { runtimeCommand } from './backends/local/runtime-bundle.ts';
import { parsePassthrough } from './backends/local/worker-env.ts';
import { parseIsolationMode, WorkerIsolation } from './backends/local/worker-isolation.ts';
import { DEFAULT_UID_RANGE, parseUidRange } from './backends/local/worker-uid.ts';
import { splitKey } from './queue/object-key.ts';
import { LocalFunctionOperator } from './backends/local/local-function-operator.ts';
import { Autoscaler } from './autoscaler/autoscaler.ts';
import { AUTOSCALER_FLAGS, AUTOSCALER_USAGE, kpaDefaultsFromFlags } from './autoscaler/autoscaler-flags.ts';
import { REVISION_GC_FLAGS, REVISION_GC_USAGE, revisionGcFromFlags } from './function/revision-gc-flags.ts';
import { createAutoscalerHandler } from './autoscaler/autoscaler-http.ts';
import { createScaleUpNow } from './autoscaler/scale-up-now.ts';
import { LocalPoolExecutor } from './backends/local/local-pool-executor.ts';
import { createSpecializeHandler } from './pool-executor/specialize-http.ts';
import { createKeyspaceDeleter } from './keyspace/delete-keyspace.ts';
import { createExecutorView } from './pool-executor/executor-view.ts';
import { createBearerTokenGuard } from './http/bearer-token-guard.ts';
import { createPlatformApi } from './http/platform-api.ts';
import { parseDurationMs } from '@orrery/spec';
import { RegistryClusterReconciler } from './registry-cluster/registry-cluster-reconciler.ts';
import { LocalRegistryClusterBackend } from './backends/local/local-registry-cluster-backend.ts';
import type { RegistryApiAuth } from './registry-cluster/registry-auth-args.ts';
import { registrationCredentials } from './reconcile/registration-credential.ts';
import { LocalRouterFleet, type ReplicaSet } from './backends/local/local-router-fleet.ts';
import { ObservedReplicaSet } from './backends/local/observed-replica-set.ts';
import { LocalStateSyncBackend } from './backends/local/local-state-sync-backend.ts';
import { StateSyncReconciler } from './state-sync/state-sync-reconciler.ts';
import { OperatorMetrics } from './metrics/operator-metrics.ts';
import { EventRecorder } from './events/event-recorder.ts';
import { LocalEventLog } from './events/local-event-log.ts';
import { observabilityFromFlags } from './observability-from-flags.ts';
import { createEventsHandler } from './events/events-http.ts';

// `--backend kubernetes` hands the process to the Kubernetes backend (its own flags, no local
// store: see docs/kubernetes-backend.md); `--backend local`, the default, continues below.
const backendFlag = process.argv.findIndex((a, i) => i >= 2 && (a === '--backend' || a.startsWith('--backend=')));
if (backendFlag >= 0) {
  const flag = process.argv[backendFlag]!;
  const backendName = flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : process.argv[backendFlag + 1];
  process.argv.splice(backendFlag, flag.includes('=') ? 1 : 2);
  if (backendName === 'kubernetes') {
    const { runKubernetesOperator } = await import('./backends/kubernetes/main-kubernetes.ts');
    await runKubernetesOperator(process.argv.slice(2));
    await new Promise<never>(() => {}); // serves until SIGTERM/SIGINT exit the process
  } else if (backendName !== 'local') {
    process.stderr.write('orrery-operator: --backend must be local or kubernetes\n');
    process.exit(2);
  }
}

const USAGE = `usage: orrery-operator [--host 127.0.0.1] [--port 0] [--data-dir .orrery] [--database-url URL]
  [--store-token-file FILE] [--registry-url URL[,URL] | --registry-cluster NAMESPACE/NAME[:PORT]] [--state-url URL] [--master-key-file FILE (state tokens; with --state-url also keyspace cleanup)]
  [--registry-master-key-file FILE [--previous-registry-master-key-file FILE] (workers' registration credentials; the
   registry APIs this operator runs get the same files)] [--registry-write-tokens-file FILE] [--require-registry-write-tokens]
  [--router-url URL] [--endpoints-file FILE] [--resync-seconds 30]
  [--statesync-routers 0 (router replicas the operator runs for a StateSync)] [--statesync-router-admin-urls URL,URL (observe routers run elsewhere)]
${AUTOSCALER_USAGE}
${REVISION_GC_USAGE}
  [--pool-size 3 (when no Environment resource sets poolSize)] [--pool-idle-timeout 120s]
  [--admin-token-file FILE (admin API login; absent = users only)] [--users-file FILE (name:role:hash lines, see orrery passwd; re-read on change)] [--router-admin-urls URL,URL (sticky counters)]
  [--trusted-proxies ADDR|CIDR|loopback,… (peers whose X-Forwarded-* the admin API believes: the console, a TLS ingress; default $ORRERY_TRUSTED_PROXIES, else none)]
  [--rollup-interval 10s (sticky and keyspace rollups for the console's history)]
  [--isolate-workers auto|on|off (auto: as root, every function's workers run under their own uid)] [--worker-uid-range ${DEFAULT_UID_RANGE.first}-${DEFAULT_UID_RANGE.last}]
  [--worker-env-passthrough NAME,NAME (variables passed to workers besides PATH, LANG, LC_*, TZ, CA paths, ORRERY_LOG_LEVEL)]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (reconcile spans over OTLP/HTTP; or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_* as in
   docs/tracing.md; workers trace when OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is in this operator's environment; default off)]
Without --store-token-file the operator makes <data-dir>/secrets/store.token (0600) and requires it: the store and
the control endpoints take no anonymous caller, not even on loopback.`;

const { values } = (() => {
  try {
    return parseArgs({
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        'data-dir': { type: 'string', default: '.orrery' },
        'database-url': { type: 'string' },
        'store-token-file': { type: 'string' },
        'registry-url': { type: 'string' },
        'registry-cluster': { type: 'string' },
        'state-url': { type: 'string' },
        'master-key-file': { type: 'string' },
        'registry-master-key-file': { type: 'string' },
        'previous-registry-master-key-file': { type: 'string' },
        'registry-write-tokens-file': { type: 'string' },
        'require-registry-write-tokens': { type: 'boolean', default: false },
        'router-url': { type: 'string' },
        'endpoints-file': { type: 'string' },
        'resync-seconds': { type: 'string', default: '30' },
        'statesync-routers': { type: 'string', default: '0' },
        'statesync-router-admin-urls': { type: 'string' },
        help: { type: 'boolean' },
        ...AUTOSCALER_FLAGS,
        ...REVISION_GC_FLAGS,
        'pool-size': { type: 'string', default: '3' },
        'pool-idle-timeout': { type: 'string', default: '120s' },
        'admin-token-file': { type: 'string' },
        'users-file': { type: 'string' },
        'trusted-proxies': { type: 'string' },
        'router-admin-urls': { type: 'string' },
        'rollup-interval': { type: 'string', default: '10s' },
        'isolate-workers': { type: 'string', default: 'auto' },
        'worker-uid-range': { type: 'string' },
        'worker-env-passthrough': { type: 'string' },
        'log-level': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
      },
      strict: true,
    });
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}

const { logger, tracing } = await observabilityFromFlags(values, USAGE);
const log = (msg: string, fields?: Record<string, unknown>) => logger.info(msg, fields);
const warn = (msg: string, fields?: Record<string, unknown>) => logger.warn(msg, fields);
// Credentials this process holds, masked wherever a later record would carry them (redaction.ts).
registerUrlSecret(values['database-url']);
registerUrlSecret(process.env.DATABASE_URL);

const dataDir = resolve(values['data-dir']);
mkdirSync(dataDir, { recursive: true });
const conn = connect({ url: values['database-url'] ?? process.env.DATABASE_URL, dataDir: join(dataDir, 'store') });
const store = await createLocalStore(conn);
// The store and the control endpoints always need a token: workers (other processes on this
// machine) share the loopback interface, so "from loopback" proves nothing.
const storeTokenFile = values['store-token-file'] ? resolve(values['store-token-file']) : ensureStoreToken(dataDir, log);
const storeToken = readFileSync(storeTokenFile, 'utf8').trim();
registerSecret(storeToken);
const { isolation, envPassthrough } = (() => {
  try {
    return {
      isolation: WorkerIsolation.create({
        dataDir,
        mode: parseIsolationMode(values['isolate-workers']),
        uidRange: values['worker-uid-range'] ? parseUidRange(values['worker-uid-range']) : undefined,
        log,
      }),
      envPassthrough: parsePassthrough(values['worker-env-passthrough']),
    };
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
const masterKey = values['master-key-file'] ? readMasterKeyFile(values['master-key-file']) : undefined;
registerSecret(masterKey?.toString('hex'));
// Workers get registration credentials derived from the registry master key (HKDF, per revision):
// without it they cannot register under orrery.functions. and routers find them only in the endpoints file.
const registryKeyFile = values['registry-master-key-file'] ? resolve(values['registry-master-key-file']) : undefined;
const registryMasterKey = registryKeyFile ? readMasterKeyFile(registryKeyFile) : undefined;
registerSecret(registryMasterKey?.toString('hex'));
const registrationCredential = registrationCredentials(registryMasterKey);
if (values['previous-registry-master-key-file'] && !registryKeyFile) {
  process.stderr.write(`orrery-operator: --previous-registry-master-key-file needs --registry-master-key-file (the new key)\n${USAGE}\n`);
  process.exit(2);
}
const registryAuth: RegistryApiAuth = {
  masterKeyFile: registryKeyFile,
  previousMasterKeyFile: values['previous-registry-master-key-file'] ? resolve(values['previous-registry-master-key-file']) : undefined,
  writeTokensFile: values['registry-write-tokens-file'] ? resolve(values['registry-write-tokens-file']) : undefined,
  requireWriteTokens: values['require-registry-write-tokens'],
};

// Where workers register: fixed URLs, or the registry API of a RegistryCluster this operator runs
// (followed as its status.endpoint changes; `orrery up` uses the examples' cluster this way).
const registryUrls = (values['registry-url'] ?? '').split(',').filter(Boolean);
const platformCluster = /^([a-z0-9-]+)\/([a-z0-9-]+)(?::(\d+))?$/.exec(values['registry-cluster'] ?? '');
if (values['registry-cluster'] && !platformCluster) {
  process.stderr.write(`orrery-operator: --registry-cluster takes NAMESPACE/NAME or NAMESPACE/NAME:PORT\n${USAGE}\n`);
  process.exit(2);
}

// GET /metrics (public, like every component's: counts and names, no secrets; see docs/security.md),
// and Events in a bounded in-memory log behind GET /v1/events (the store has no Event kind).
const metrics = new OperatorMetrics();
const eventLog = new LocalEventLog();
const events = new EventRecorder(eventLog, { log: (msg) => log(msg) });
events.observeWith(metrics);

// Plain node on a bundled runtime when possible: workers start ~3× faster than through tsx.
const runtime = await runtimeCommand((msg) => log(msg));
const backend = new LocalBackend({
  runtimeCommand: runtime,
  dataDir,
  registryUrls,
  endpointsFile: values['endpoints-file'] ? resolve(values['endpoints-file']) : undefined,
  // the operator is created just below; the backend only calls back once workers run
  onChange: (key) => operator.workerChanged(key),
  extraEndpoints: () => pool.endpoints(),
  registrationCredential,
  isolation,
  envPassthrough,
});
const poolSizeDefault = Number(values['pool-size']);
const poolIdleMs = parseDurationMs(values['pool-idle-timeout']);
if (!Number.isInteger(poolSizeDefault) || poolSizeDefault < 0 || !Number.isFinite(poolIdleMs)) {
  process.stderr.write(`orrery-operator: --pool-size must be an integer ≥ 0 and --pool-idle-timeout a duration like "120s"\n${USAGE}\n`);
  process.exit(2);
}
// The cold path reads Revisions, Functions and Environments from memory, not from the database.
const executorView = createExecutorView(store, (err) => warn(`executor view: ${(err as Error).message}`));
const pool: LocalPoolExecutor = new LocalPoolExecutor({
  runtimeCommand: runtime,
  dataDir,
  registryUrls,
  stateUrl: values['state-url'],
  poolSizeOf: async (ns, env) => (await executorView.environment(ns, env))?.spec.poolSize ?? poolSizeDefault,
  idleTimeoutMs: poolIdleMs,
  onChange: () => backend.publish(),
  // The revision's reconcile calls pool.scale with its decided scale (minScale after a cold start, a lost worker replaced).
  reconcileNow: (key) => operator.workerChanged(key),
  registrationCredential,
  isolation,
  envPassthrough,
  log,
});
// Rewrite the endpoints file now (empty until workers run): a previous run's file would send
// routers to its dead workers, whose ports other processes may have taken since.
backend.publish();
const revisionGc = (() => {
  try {
    return revisionGcFromFlags(values);
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
const kpaDefaults = (() => {
  try {
    return kpaDefaultsFromFlags(values);
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
})();
const autoscaler = new Autoscaler({
  defaults: kpaDefaults,
  // A revision is either deploy (backend workers) or pool (specialized workers).
  readyOf: (key) => backend.observe(...splitKey(key)).ready + pool.readySpecialized(key),
  onChange: (key) => {
    void scaleUpNow(key).catch((err: unknown) => warn(`scale up ${key}: ${(err as Error).message}`));
    operator.workerChanged(key);
  },
  onActivity: (key) => pool.touch(key),
  onDecision: metrics.decided,
});
metrics.watchAutoscaler(autoscaler);
// A raised decision starts workers at once; the reconcile queue follows for the rest.
const scaleUpNow = createScaleUpNow({
  autoscaler,
  backend,
  revision: (ns, name) => executorView.revision(ns, name),
  fn: (ns, name) => executorView.fn(ns, name),
  credentials: (fn) => operator.credentials(fn),
});
const operator: LocalFunctionOperator = new LocalFunctionOperator({
  autoscaler,
  pool: {
    keepWarm: (rev) => void pool.ensurePool(rev.metadata.namespace, rev.spec.template.environment).catch((err: unknown) => warn(`pool: ${(err as Error).message}`)),
    release: (key) => pool.release(key),
    readyWorkers: (namespace, environment) => pool.readyPoolWorkers(namespace, environment),
    scale: (rev, desired, credentials) => pool.scale(rev, desired, credentials),
  },
  store,
  backend,
  masterKey,
  stateUrl: values['state-url'],
  // spec.state.onDelete: delete — statesvc's signed admin call (needs its URL and the master key).
  deleteKeyspace: values['state-url'] && masterKey ? createKeyspaceDeleter({ stateUrl: values['state-url'], masterKey }) : undefined,
  routerUrl: values['router-url'],
  resyncMs: Number(values['resync-seconds']) * 1000,
  revisionGc,
  events,
  metrics,
  log,
});

// The admin API (console, CLI, automation) over the same store and database; see docs/api.md.
const rollupIntervalMs = parseDurationMs(values['rollup-interval']);
if (!Number.isFinite(rollupIntervalMs) || rollupIntervalMs < 1000) {
  process.stderr.write(`orrery-operator: --rollup-interval must be a duration of at least 1s, like "10s"\n${USAGE}\n`);
  process.exit(2);
}
const adminToken = values['admin-token-file'] ? readAdminTokenFile(values['admin-token-file']) : undefined;
registerSecret(adminToken);
// Set once the StateSync replica set exists (below); requests may arrive before that.
const fleet: { current?: ReplicaSet } = {};
const flagRouterAdminUrls = (values['router-admin-urls'] ?? '').split(',').filter(Boolean);
const platformApi = await createPlatformApi({
  store,
  db: conn,
  storeToken,
  adminToken,
  usersFile: values['users-file'],
  trustedProxies: values['trusted-proxies'],
  statesvc: values['state-url'] ? { url: values['state-url'], masterKey } : undefined,
  // Routers named on the command line plus the ones a StateSync makes this operator run.
  routerAdminUrls: () => [...new Set([...flagRouterAdminUrls, ...(fleet.current?.replicas() ?? []).map((r) => r.adminUrl).filter((u): u is string => !!u)])],
  log,
}).catch((err: unknown) => {
  process.stderr.write(`orrery-operator: ${(err as Error).message}\n`);
  process.exit(2);
});
const apiServices = platformApi.services;
const handleAutoscaler = createAutoscalerHandler(autoscaler, {
  // Only deploy revisions the KPA scales get workers from the backend; others answer at once.
  readyAddresses: async (ns, name, ms) => {
    const rev = await executorView.revision(ns, name);
    return rev?.spec.template.executor === 'deploy' && autoscaler.isTracked(`${ns}/${name}`) ? backend.readyAddresses(`${ns}/${name}`, ms) : [];
  },
  firstReadyTimes: (ns, name) => backend.firstReadyTimes(`${ns}/${name}`),
});
const handleSpecialize = createSpecializeHandler({ view: executorView, pool, credentials: (fn) => operator.credentials(fn) });
// Pokes, stats, specializations and the worker list carry the store token too (the router has it for the store).
const controlAuthorized = createBearerTokenGuard(storeToken);
const handleEvents = createEventsHandler(eventLog);
const server = createServer((req, res) => {
  if (req.url === '/healthz') {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true }));
    return;
  }
  if (req.url === '/metrics') {
    void metrics.respond(req, res);
    return;
  }
  // Events name objects and what went wrong with them: the platform's tools only, as /v1/workers.
  if (req.url === '/v1/events' || req.url?.startsWith('/v1/events?')) {
    if (controlAuthorized(req, res)) handleEvents(req, res);
    return;
  }
  // Worker addresses and pids are for the platform's own tools: same guard as the control endpoints.
  if (req.url === '/v1/workers') {
    if (!controlAuthorized(req, res)) return;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ endpoints: backend.endpoints(), pids: [...backend.workerPids(), ...pool.workerPids()], pool: { specializations: pool.specializations, warm: pool.warmCounts() } }));
    return;
  }
  if ((req.url?.startsWith('/v1/executor/') || req.url?.startsWith('/v1/autoscaler/')) && !controlAuthorized(req, res)) return;
  if (req.url?.startsWith('/v1/executor/')) {
    void handleSpecialize(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.url}`, code: 'not_found' }));
    });
    return;
  }
  if (req.url?.startsWith('/v1/autoscaler/')) {
    void handleAutoscaler(req, res);
    return;
  }
  void platformApi.handle(req, res).then((handled) => {
    if (!handled) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.url}`, code: 'not_found' }));
  });
});
server.listen(Number(values.port), values.host, () => {
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(`listening http://${host}:${port}\n`);
});
await operator.start();
autoscaler.start();
pool.start();
log('operator started', { dataDir, store: conn.kind, masterKey: masterKey ? 'configured' : 'absent', registryMasterKey: registryKeyFile ? 'configured' : 'absent' });

// RegistryCluster: etcd members + orrery-registry as child processes (docs/registry-clusters.md).
const registryClusters = new RegistryClusterReconciler({
  store,
  backend: new LocalRegistryClusterBackend({
    dataDir,
    apiPorts: platformCluster?.[3] ? { [`${platformCluster[1]}/${platformCluster[2]}`]: Number(platformCluster[3]) } : undefined,
    registryAuth,
  }),
  log,
  events,
  metrics,
  // The backend and the pool read registryUrls at each worker start: follow the platform cluster's API.
  onEndpoint: (key, url) => {
    if (!platformCluster || key !== `${platformCluster[1]}/${platformCluster[2]}` || !url) return;
    registryUrls.splice(0, registryUrls.length, url);
    log('workers register at the platform registry', { url });
  },
});
await registryClusters.start();
// StateSync: routers the operator runs (restarted with the rendered flags), or routers run elsewhere (observed).
const observedRouters = (values['statesync-router-admin-urls'] ?? '').split(',').filter(Boolean);
const syncReplicas: ReplicaSet = observedRouters.length
  ? new ObservedReplicaSet(observedRouters)
  : new LocalRouterFleet({
      count: Number(values['statesync-routers']) || 0,
      baseArgs: () => {
        const { port } = server.address() as AddressInfo;
        const self = `http://${values.host === '0.0.0.0' ? '127.0.0.1' : values.host}:${port}`;
        return [
          '--store-url', self, '--autoscaler-url', self,
          '--store-token-file', storeTokenFile,
          ...(values['endpoints-file'] ? ['--endpoints-file', resolve(values['endpoints-file'])] : []),
        ];
      },
      log,
    });
fleet.current = syncReplicas;
// A rollout restarts the routers one at a time: stop waits for it.
const stateSyncs = new StateSyncReconciler({ store, backend: new LocalStateSyncBackend({ dataDir, replicas: syncReplicas, log }), stopTimeoutMs: 60_000, log });
await stateSyncs.start();
const rollups = startRollups(apiServices, rollupIntervalMs, log);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: stopping workers and the store`);
  server.close();
  server.closeAllConnections();
  autoscaler.stop();
  executorView.stop();
  rollups.stop();
  await operator.stop();
  await pool.stopAll();
  await backend.stopAll();
  isolation.close();
  await registryClusters.stop();
  await stateSyncs.stop();
  await syncReplicas.stop();
  await store.close();
  await conn.close();
  await tracing?.shutdown();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
