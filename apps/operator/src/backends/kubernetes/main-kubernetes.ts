/**
 * `orrery-operator --backend kubernetes`: the operator as it runs in a cluster. Every replica
 * serves the admission webhook, /healthz and the platform's APIs over the CRDs (the resource
 * store on /v1/store/ for the routers and statesvc, the admin API on /trpc/ for the console);
 * only the Lease holder reconciles.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { KubeConfig } from '@kubernetes/client-node';
import { readAdminTokenFile } from '@orrery/api';
import { parseMasterKey, readMasterKeyFile } from '@orrery/auth';
import { connect, migrate } from '@orrery/db';
import { registerSecret, registerUrlSecret } from '@orrery/log';
import { TRACE_ENV_PASSTHROUGH } from '@orrery/tracing';
import { observabilityFromFlags } from '../../observability-from-flags.ts';
import { EnvironmentSchema, GROUP_VERSION, parseDurationMs } from '@orrery/spec';
import { keyspaceHoldersAmong } from '@orrery/store';
import { startRollups } from '../../admin-api/start-rollups.ts';
import { AUTOSCALER_FLAGS, AUTOSCALER_USAGE, kpaDefaultsFromFlags } from '../../autoscaler/autoscaler-flags.ts';
import { REVISION_GC_FLAGS, REVISION_GC_USAGE, revisionGcFromFlags } from '../../function/revision-gc-flags.ts';
import { createBearerTokenGuard } from '../../http/bearer-token-guard.ts';
import { createPlatformApi } from '../../http/platform-api.ts';
import { createKeyspaceDeleter } from '../../keyspace/delete-keyspace.ts';
import { type WebhookServer, startWebhookServer } from '../../webhook/webhook-server.ts';
import { ElectedOperator } from './elected-operator.ts';
import { Informer } from './informer.ts';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import { LEADER_URL_ANNOTATION, createLeaderForwarding } from './leader-forwarding.ts';
import { RouterPods } from './router-pods.ts';
import { startKubernetesStateSyncs } from './kube-state-sync-backend.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';
import { startKubernetesRegistryClusters } from './start-registry-clusters.ts';
import { registrationCredentials } from '../../reconcile/registration-credential.ts';
import { OperatorMetrics } from '../../metrics/operator-metrics.ts';
import { ensureDefaultRegistryCluster, parseDefaultRegistryClusterSpec } from './bootstrap/default-registry-cluster.ts';
import { ensureGeneratedSecret, parseSecretRef } from './bootstrap/generated-secret.ts';
import { WebhookCertKeeper } from './bootstrap/webhook-cert-keeper.ts';

export const KUBERNETES_USAGE = `usage: orrery-operator --backend kubernetes [--host 0.0.0.0] [--port 0]
  [--kubeconfig FILE | --server URL (no auth; tests and kubectl proxy)]   (default: in-cluster)
  [--namespace NS (watch one namespace; default all)] [--lease-namespace orrery-system] [--lease-name orrery-operator]
  [--identity NAME] [--lease-duration-seconds 15] [--renew-deadline-seconds 10] [--retry-period-seconds 2]
  [--webhook-port 9443] [--webhook-cert-file tls.crt --webhook-key-file tls.key |
   --webhook-cert-secret NAME --webhook-service SVC [--webhook-configuration NAME] (the operator makes, rotates and
   serves its own certificate from this Secret in --lease-namespace and keeps caBundle in the named configurations)]
  [--store-token-secret | --admin-token-secret | --master-key-secret | --registry-master-key-secret NAME[/KEY]
   (instead of the matching *-file flag: read from this Secret in --lease-namespace, created with a random value if missing)]
  [--generate-secret NAME/KEY ... (create these Secrets with a random value if missing, e.g. in-cluster database passwords)]
  [--database-password-secret NAME[/KEY] (the password of --database-url, from this Secret)]
  [--default-registry-cluster NAME [--default-registry-cluster-spec JSON] (the leader creates this RegistryCluster in
   --lease-namespace once, if missing)]
  [--state-url URL] [--master-key-file FILE (state tokens; with --state-url also keyspace cleanup)] [--router-url URL]
  [--registry-url URL[,URL] (orrery-registry: every function worker registers there, which is how routers find it)]
  [--runtime-image ${DEFAULT_RUNTIME_IMAGE}] [--pool-idle-timeout 120s (specialized pool pods without traffic are deleted)]
  [--progress-deadline 600s (a deploy revision whose workers make no rollout progress this long fails; default Kubernetes' 600s)]
  [--registry-image orrery/registry:latest (the registry API beside each RegistryCluster's etcd members)]
  [--registry-master-key-file FILE [--previous-registry-master-key-file FILE] (workers' registration credentials under
   orrery.functions.; copied with the write tokens into each RegistryCluster's registry-auth Secret)]
  [--registry-write-tokens-file FILE ([[write_tokens]] with inline tokens)] [--require-registry-write-tokens]
  [--store-token-file FILE (bearer token of /v1/store/)] [--admin-token-file FILE] [--users-file FILE (re-read on change)]
  [--trusted-proxies ADDR|CIDR,… (peers whose X-Forwarded-* the admin API believes: the console pods, an ingress; default $ORRERY_TRUSTED_PROXIES, else none)]
  [--database-url URL (audit log, users, sessions; default $DATABASE_URL, else in memory)]
  [--router-admin-urls URL,URL (fixed list) | --router-pod-selector LABELS (default app.kubernetes.io/component=router)
   [--router-namespace NS (default: --lease-namespace)] [--router-admin-port 9090]] [--rollup-interval 10s]
  [--advertise-url http://POD_IP:PORT (where followers forward KPA stats, pokes and specializations while this replica leads;
   default http://$POD_IP:<port>, else this host)]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (reconcile spans over OTLP/HTTP; or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_* as in docs/tracing.md; default off)]
${AUTOSCALER_USAGE}
${REVISION_GC_USAGE}`;

function kubeConfig(values: { kubeconfig?: string; server?: string }): KubeConfig {
  if (values.server) return kubeConfigFor({ server: values.server });
  const kc = new KubeConfig();
  if (values.kubeconfig) kc.loadFromFile(values.kubeconfig);
  else kc.loadFromCluster();
  return kc;
}

export async function runKubernetesOperator(args: string[]): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '0' },
        kubeconfig: { type: 'string' },
        server: { type: 'string' },
        namespace: { type: 'string' },
        'lease-namespace': { type: 'string', default: 'orrery-system' },
        'lease-name': { type: 'string', default: 'orrery-operator' },
        identity: { type: 'string' },
        'lease-duration-seconds': { type: 'string', default: '15' },
        'renew-deadline-seconds': { type: 'string', default: '10' },
        'retry-period-seconds': { type: 'string', default: '2' },
        'webhook-port': { type: 'string' },
        'webhook-host': { type: 'string' },
        'webhook-cert-file': { type: 'string' },
        'webhook-key-file': { type: 'string' },
        'webhook-cert-secret': { type: 'string' },
        'webhook-service': { type: 'string' },
        'webhook-configuration': { type: 'string', multiple: true },
        'store-token-secret': { type: 'string' },
        'admin-token-secret': { type: 'string' },
        'master-key-secret': { type: 'string' },
        'registry-master-key-secret': { type: 'string' },
        'generate-secret': { type: 'string', multiple: true },
        'database-password-secret': { type: 'string' },
        'default-registry-cluster': { type: 'string' },
        'default-registry-cluster-spec': { type: 'string' },
        'state-url': { type: 'string' },
        'master-key-file': { type: 'string' },
        'router-url': { type: 'string' },
        'runtime-image': { type: 'string', default: DEFAULT_RUNTIME_IMAGE },
        'registry-url': { type: 'string' },
        'pool-idle-timeout': { type: 'string', default: '120s' },
        'progress-deadline': { type: 'string' },
        'registry-image': { type: 'string', default: 'orrery/registry:latest' },
        'registry-master-key-file': { type: 'string' },
        'previous-registry-master-key-file': { type: 'string' },
        'registry-write-tokens-file': { type: 'string' },
        'require-registry-write-tokens': { type: 'boolean', default: false },
        'store-token-file': { type: 'string' },
        'admin-token-file': { type: 'string' },
        'users-file': { type: 'string' },
        'trusted-proxies': { type: 'string' },
        'database-url': { type: 'string' },
        'router-admin-urls': { type: 'string' },
        'router-pod-selector': { type: 'string', default: 'app.kubernetes.io/component=router' },
        'router-namespace': { type: 'string' },
        'router-admin-port': { type: 'string', default: '9090' },
        'rollup-interval': { type: 'string', default: '10s' },
        'advertise-url': { type: 'string' },
        'log-level': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
        ...AUTOSCALER_FLAGS,
        ...REVISION_GC_FLAGS,
        help: { type: 'boolean' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${KUBERNETES_USAGE}\n`);
    process.exit(2);
  }
  if (values.help) {
    console.log(KUBERNETES_USAGE);
    process.exit(0);
  }
  const seconds = (flag: 'lease-duration-seconds' | 'renew-deadline-seconds' | 'retry-period-seconds') => {
    const n = Number(values[flag]);
    if (!Number.isFinite(n) || n <= 0) {
      process.stderr.write(`orrery-operator: --${flag} must be a positive number of seconds\n`);
      process.exit(2);
    }
    return n * 1000;
  };
  if (Boolean(values['webhook-cert-file']) !== Boolean(values['webhook-key-file'])) {
    process.stderr.write('orrery-operator: --webhook-cert-file and --webhook-key-file go together\n');
    process.exit(2);
  }
  if (values['webhook-cert-secret'] && values['webhook-cert-file']) {
    process.stderr.write('orrery-operator: --webhook-cert-secret (the operator makes the certificate) and --webhook-cert-file (someone else does) exclude each other\n');
    process.exit(2);
  }
  if (values['webhook-cert-secret'] && !values['webhook-service']) {
    process.stderr.write('orrery-operator: --webhook-cert-secret needs --webhook-service (the certificate is issued for <service>.<namespace>.svc)\n');
    process.exit(2);
  }
  for (const [file, secret] of [['store-token-file', 'store-token-secret'], ['admin-token-file', 'admin-token-secret'], ['master-key-file', 'master-key-secret'], ['registry-master-key-file', 'registry-master-key-secret']] as const) {
    if (values[file] && values[secret]) {
      process.stderr.write(`orrery-operator: --${file} and --${secret} exclude each other\n`);
      process.exit(2);
    }
  }
  let defaultRegistryClusterSpec: Record<string, unknown> = {};
  try {
    defaultRegistryClusterSpec = parseDefaultRegistryClusterSpec(values['default-registry-cluster-spec']);
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n`);
    process.exit(2);
  }
  const rollupIntervalMs = parseDurationMs(values['rollup-interval']);
  if (!Number.isFinite(rollupIntervalMs) || rollupIntervalMs < 1000) {
    process.stderr.write('orrery-operator: --rollup-interval must be a duration of at least 1s, like "10s"\n');
    process.exit(2);
  }
  const poolIdleTimeoutMs = parseDurationMs(values['pool-idle-timeout']);
  if (!Number.isFinite(poolIdleTimeoutMs) || poolIdleTimeoutMs < 1000) {
    process.stderr.write('orrery-operator: --pool-idle-timeout must be a duration of at least 1s, like "120s"\n');
    process.exit(2);
  }
  // The Deployment field is whole seconds; absent, Kubernetes applies its 600.
  const progressDeadlineMs = values['progress-deadline'] === undefined ? undefined : parseDurationMs(values['progress-deadline']);
  if (progressDeadlineMs !== undefined && !(Number.isFinite(progressDeadlineMs) && progressDeadlineMs >= 1000 && progressDeadlineMs % 1000 === 0)) {
    process.stderr.write('orrery-operator: --progress-deadline must be a whole number of seconds of at least 1s, like "600s" or "10m"\n');
    process.exit(2);
  }
  const registryUrls = (values['registry-url'] ?? '').split(',').filter(Boolean);
  for (const u of registryUrls) {
    if (!URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol)) {
      process.stderr.write(`orrery-operator: --registry-url ${JSON.stringify(u)} is not an http(s) URL\n`);
      process.exit(2);
    }
  }
  let kpa;
  let revisionGc;
  try {
    kpa = kpaDefaultsFromFlags(values);
    revisionGc = revisionGcFromFlags(values);
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${KUBERNETES_USAGE}\n`);
    process.exit(2);
  }
  const { logger, tracing } = await observabilityFromFlags(values, KUBERNETES_USAGE, { backend: 'kubernetes' });
  const log = (msg: string, fields?: Record<string, unknown>) => logger.info(msg, fields);
  const warn = (msg: string, fields?: Record<string, unknown>) => logger.warn(msg, fields);
  // Credentials this process holds, masked wherever a later record would carry them (redaction.ts).
  registerUrlSecret(values['database-url']);
  registerUrlSecret(process.env.DATABASE_URL);
  const fail = (msg: string): never => {
    process.stderr.write(`orrery-operator: ${msg}\n`);
    process.exit(2);
  };

  const client = new KubeClient(kubeConfig(values), { log: (msg) => log(msg) });
  // One identity per process (the pod's name from the downward API, else the host name, plus a
  // random suffix): a restarted container must not resume the term of the process it replaces.
  const identity = values.identity ?? `${process.env.POD_NAME || hostname()}-${randomBytes(4).toString('hex')}`;
  // Credentials nobody supplied: made once by whichever replica starts first (create-only, so
  // racing replicas all read the winner's), kept across upgrades since the chart never renders them.
  const secretsNamespace = values['lease-namespace'];
  const fromSecret = async (flag: 'store-token-secret' | 'admin-token-secret' | 'master-key-secret' | 'registry-master-key-secret' | 'generate-secret' | 'database-password-secret', ref: string | undefined, defaultKey: string) => {
    if (!ref) return undefined;
    try {
      return await ensureGeneratedSecret(client, secretsNamespace, parseSecretRef(ref, defaultKey), (msg) => log(msg));
    } catch (err) {
      return fail(`--${flag}: ${(err as Error).message}`);
    }
  };
  for (const ref of values['generate-secret'] ?? []) registerSecret(await fromSecret('generate-secret', ref, 'password'));
  const generated = {
    storeToken: await fromSecret('store-token-secret', values['store-token-secret'], 'token'),
    adminToken: await fromSecret('admin-token-secret', values['admin-token-secret'], 'token'),
    masterKey: await fromSecret('master-key-secret', values['master-key-secret'], 'master-key'),
    registryMasterKey: await fromSecret('registry-master-key-secret', values['registry-master-key-secret'], 'registry-master-key'),
    databasePassword: await fromSecret('database-password-secret', values['database-password-secret'], 'password'),
  };
  for (const value of Object.values(generated)) registerSecret(value);
  const masterKey = values['master-key-file'] ? readMasterKeyFile(values['master-key-file']) : generated.masterKey ? parseMasterKey(generated.masterKey, `--master-key-secret ${values['master-key-secret']}`) : undefined;
  registerSecret(masterKey?.toString('hex'));
  // Registry write credentials: the key workers' registration credentials derive from (and the
  // previous one during a rotation), and the write tokens, for the registries this operator runs.
  const registryAuth = (() => {
    try {
      const keys = [values['registry-master-key-file'], values['previous-registry-master-key-file']].filter((f): f is string => !!f).map(readMasterKeyFile);
      if (generated.registryMasterKey) keys.unshift(parseMasterKey(generated.registryMasterKey, `--registry-master-key-secret ${values['registry-master-key-secret']}`));
      if (values['previous-registry-master-key-file'] && !values['registry-master-key-file'] && !generated.registryMasterKey) fail('--previous-registry-master-key-file needs --registry-master-key-file (the new key)');
      const tokensFile = values['registry-write-tokens-file'];
      for (const key of keys) registerSecret(key.toString('hex'));
      return { masterKeys: keys, writeTokensToml: tokensFile ? readFileSync(tokensFile, 'utf8') : undefined, requireWriteTokens: values['require-registry-write-tokens'] };
    } catch (err) {
      return fail(`registry write credentials: ${(err as Error).message}`);
    }
  })();

  // The platform's APIs over the CRDs. Reads and writes go to the API server, so every replica
  // serves them, leader or not. Tokens are files (mounted Secrets), read once at start.
  const readToken = (flag: 'store-token-file') => {
    const file = values[flag];
    if (!file) return generated.storeToken;
    try {
      const token = readFileSync(file, 'utf8').trim();
      registerSecret(token);
      return token;
    } catch (err) {
      return fail(`cannot read --${flag}: ${(err as Error).message}`);
    }
  };
  const readAdminToken = () => {
    try {
      if (generated.adminToken !== undefined && generated.adminToken.length < 16) return fail(`--admin-token-secret: the token holds ${generated.adminToken.length} characters; use at least 16`);
      const token = values['admin-token-file'] ? readAdminTokenFile(values['admin-token-file']) : generated.adminToken;
      registerSecret(token);
      return token;
    } catch (err) {
      return fail((err as Error).message);
    }
  };
  if (!registryUrls.length) warn('no --registry-url: function workers register nowhere, so routers that discover workers through the registry will not find them');
  if (registryUrls.length && !registryAuth.masterKeys.length) warn('no --registry-master-key-file: workers get no registration credential, and a registry refuses every write under orrery.functions. without one, so routers will not find them');
  const deleteKeyspace = values['state-url'] && masterKey ? createKeyspaceDeleter({ stateUrl: values['state-url'], masterKey }) : undefined;
  const store = createKubernetesResourceStore({ client, namespace: values.namespace });
  const databaseUrl = withPassword(values['database-url'] ?? process.env.DATABASE_URL, generated.databasePassword, fail);
  if (!databaseUrl) warn('no --database-url or DATABASE_URL: the admin API keeps its audit log, users and sessions in memory (lost on restart, not shared between replicas)');
  const db = connect({ url: databaseUrl ?? '' });
  await migrate(db);
  const routerAdminUrls = (values['router-admin-urls'] ?? '').split(',').filter(Boolean);
  const routerAdminPort = Number(values['router-admin-port']);
  if (!Number.isInteger(routerAdminPort) || routerAdminPort < 1 || routerAdminPort > 65535) fail('--router-admin-port must be a port number');
  // Without a fixed list, every running router pod is asked (the console sums their counters).
  const routerPods = routerAdminUrls.length
    ? undefined
    : new RouterPods(client, { namespace: values['router-namespace'] ?? values['lease-namespace'], labelSelector: values['router-pod-selector'], adminPort: routerAdminPort, log });
  routerPods?.start();
  const storeToken = readToken('store-token-file');
  const platformApi = await createPlatformApi({
    store,
    db,
    storeToken,
    adminToken: readAdminToken(),
    usersFile: values['users-file'],
    trustedProxies: values['trusted-proxies'],
    statesvc: values['state-url'] ? { url: values['state-url'], masterKey } : undefined,
    routerAdminUrls: () => routerPods?.adminUrls() ?? routerAdminUrls,
    log,
  }).catch((err: unknown) => fail((err as Error).message));

  // Filled in once the server listens (the URL needs its port), before campaigning starts.
  const leaseAnnotations: Record<string, string> = {};
  // GET /metrics on every replica (public, as every component's; docs/security.md); one set across leader terms.
  const metrics: OperatorMetrics = new OperatorMetrics({ isLeader: (): boolean => elected.isLeader });
  const elected = new ElectedOperator({
    client,
    kpa,
    metrics,
    namespace: values.namespace,
    masterKey,
    stateUrl: values['state-url'],
    routerUrl: values['router-url'],
    runtimeImage: values['runtime-image'],
    registryUrls,
    registrationCredential: registrationCredentials(registryAuth.masterKeys[0]),
    pool: { idleTimeoutMs: poolIdleTimeoutMs },
    progressDeadlineSeconds: progressDeadlineMs === undefined ? undefined : progressDeadlineMs / 1000,
    revisionGc,
    workerTraceEnv: Object.fromEntries(TRACE_ENV_PASSTHROUGH.flatMap((n) => (process.env[n] ? [[n, process.env[n]]] : []))),
    // Deletion policy `delete`: statesvc's signed admin call (needs both the URL and the key).
    deleteKeyspace: deleteKeyspace
      ? async (namespace, keyspace) => {
          const deleted = await deleteKeyspace(namespace, keyspace);
          log('deleted keyspace', { namespace, keyspace, keys: deleted });
        }
      : undefined,
    // Leader-only work beside the function controllers: one writer of the console's history (two
    // replicas sampling would double every point), and the RegistryCluster and StateSync
    // reconcilers over the same store. Stopping them leaves their pods running for the next leader.
    whileLeading: () => {
      const rollups = startRollups(platformApi.services, rollupIntervalMs, log);
      const registries = startKubernetesRegistryClusters(client, store, { registryImage: values['registry-image'], auth: registryAuth, log, metrics });
      const syncs = startKubernetesStateSyncs(client, store, { log });
      const stopDefaultCluster = new AbortController();
      if (values['default-registry-cluster']) {
        void ensureDefaultRegistryCluster(client, secretsNamespace, { name: values['default-registry-cluster'], spec: defaultRegistryClusterSpec }, { signal: stopDefaultCluster.signal, log });
      }
      const failed = (what: string) => (err: unknown) => warn(`${what} did not start`, { error: (err as Error).message });
      registries.catch(failed('RegistryCluster reconciler'));
      syncs.catch(failed('StateSync reconciler'));
      return {
        stop: () => {
          stopDefaultCluster.abort();
          rollups.stop();
          void registries.then((r) => r.stop(), () => {});
          void syncs.then((s) => s.stop(), () => {});
        },
      };
    },
    log,
    election: {
      namespace: values['lease-namespace'],
      name: values['lease-name'],
      identity,
      leaseDurationMs: seconds('lease-duration-seconds'),
      renewDeadlineMs: seconds('renew-deadline-seconds'),
      retryPeriodMs: seconds('retry-period-seconds'),
      holderAnnotations: leaseAnnotations,
      log,
    },
  });

  // Every replica answers admission, so validation needs its own (unelected) Environment and
  // Function caches (the Functions: a keyspace belongs to one Function). A cache can lag a
  // concurrent create, so two racing creates may both pass; keyspace deletion never wipes a
  // keyspace another Function still declares.
  const environments = new Informer(client, { apiVersion: GROUP_VERSION, kind: 'Environment', namespace: values.namespace, log });
  const functions = new Informer(client, { apiVersion: GROUP_VERSION, kind: 'Function', namespace: values.namespace, log });
  // Every replica serves the webhook, so every replica runs the keeper: all serve the Secret's
  // certificate, any of them may rotate it (a write guarded by resourceVersion; one wins).
  // Filled in below: the keeper's first certificate goes to the server's constructor, later ones here.
  const serving: { webhook?: WebhookServer } = {};
  const certKeeper =
    values['webhook-port'] !== undefined && values['webhook-cert-secret']
      ? new WebhookCertKeeper({
          client,
          namespace: secretsNamespace,
          secretName: values['webhook-cert-secret'],
          dnsNames: [`${values['webhook-service']}.${secretsNamespace}.svc`, `${values['webhook-service']}.${secretsNamespace}.svc.cluster.local`],
          configurations: values['webhook-configuration'] ?? [],
          onCertificate: (pair) => serving.webhook?.setCertificate(pair),
          log: (msg) => log(msg),
        })
      : undefined;
  const keptCert = await certKeeper?.start().catch((err: unknown) => fail(`webhook certificate (--webhook-cert-secret): ${(err as Error).message}`));
  const webhook =
    values['webhook-port'] !== undefined
      ? await startWebhookServer({
          host: values['webhook-host'] ?? values.host,
          port: Number(values['webhook-port']),
          tls: keptCert ?? (values['webhook-cert-file'] ? { certFile: values['webhook-cert-file'], keyFile: values['webhook-key-file']! } : undefined),
          lookup: {
            environment: (ns, name) => {
              const r = EnvironmentSchema.safeParse(environments.get(ns, name));
              return r.success ? r.data : undefined;
            },
            keyspaceHolders: (ns, keyspace) => keyspaceHoldersAmong(functions.list(), ns, keyspace),
          },
          log,
        })
      : undefined;
  serving.webhook = webhook;
  if (webhook) {
    environments.start();
    functions.start();
  }

  // The KPA (and the pool executor) run on the leader; routers may reach any replica. Same
  // bearer token as the store, as in local mode.
  const controlAuthorized = createBearerTokenGuard(storeToken);
  const toLeader = createLeaderForwarding({ identity, local: () => elected.control, leaderUrl: () => elected.leaderUrl });
  const server = createServer((req, res) => {
    if (req.url === '/metrics') {
      void metrics.respond(req, res);
      return;
    }
    if (req.url === '/healthz' || req.url === '/readyz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ ok: true, identity, leader: elected.isLeader }));
      return;
    }
    if (req.url?.startsWith('/v1/autoscaler/') || req.url?.startsWith('/v1/executor/')) {
      if (controlAuthorized(req, res)) void toLeader(req, res);
      return;
    }
    void platformApi.handle(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `no route ${req.url}`, code: 'not_found' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(Number(values.port), values.host, resolve));
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  leaseAnnotations[LEADER_URL_ANNOTATION] = values['advertise-url'] ?? `http://${process.env.POD_IP || (address === '0.0.0.0' || address === '::' ? hostname() : host)}:${port}`;
  if (webhook) process.stdout.write(`webhook ${webhook.url}\n`);
  process.stdout.write(`listening http://${host}:${port}\n`);
  elected.start();
  log(`started as ${identity}`);

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: releasing the lease and stopping`);
    // Release first, so another replica takes over without waiting for the lease to expire.
    await elected.stop({ release: true });
    environments.stop();
    functions.stop();
    certKeeper?.stop();
    routerPods?.stop();
    await webhook?.close();
    server.closeAllConnections();
    server.close();
    await store.close();
    await db.close();
    await tracing?.shutdown();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/** The database URL with the password from --database-password-secret put in (the URL in the pod spec carries none). */
function withPassword(url: string | undefined, password: string | undefined, fail: (msg: string) => never): string | undefined {
  if (!url || password === undefined) return url;
  if (!URL.canParse(url)) return fail('--database-url is not a URL (postgres://USER@HOST:5432/DB)');
  const u = new URL(url);
  u.password = encodeURIComponent(password);
  return u.toString();
}
