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
import { readMasterKeyFile } from '@orrery/auth';
import { connect, migrate } from '@orrery/db';
import { EnvironmentSchema, GROUP_VERSION, parseDurationMs } from '@orrery/spec';
import { keyspaceHoldersAmong } from '@orrery/store';
import { startRollups } from '../../admin-api/start-rollups.ts';
import { AUTOSCALER_FLAGS, AUTOSCALER_USAGE, kpaDefaultsFromFlags } from '../../autoscaler/autoscaler-flags.ts';
import { createBearerTokenGuard } from '../../http/bearer-token-guard.ts';
import { createPlatformApi } from '../../http/platform-api.ts';
import { createKeyspaceDeleter } from '../../keyspace/delete-keyspace.ts';
import { startWebhookServer } from '../../webhook/webhook-server.ts';
import { ElectedOperator } from './elected-operator.ts';
import { Informer } from './informer.ts';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import { LEADER_URL_ANNOTATION, createLeaderForwarding } from './leader-forwarding.ts';
import { RouterPods } from './router-pods.ts';
import { startKubernetesStateSyncs } from './kube-state-syncs.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';
import { startKubernetesRegistryClusters } from './start-registry-clusters.ts';
import { registrationCredentials } from '../../reconcile/registration-credential.ts';

export const KUBERNETES_USAGE = `usage: orrery-operator --backend kubernetes [--host 0.0.0.0] [--port 0]
  [--kubeconfig FILE | --server URL (no auth; tests and kubectl proxy)]   (default: in-cluster)
  [--namespace NS (watch one namespace; default all)] [--lease-namespace orrery-system] [--lease-name orrery-operator]
  [--identity NAME] [--lease-duration-seconds 15] [--renew-deadline-seconds 10] [--retry-period-seconds 2]
  [--webhook-port 9443] [--webhook-cert-file tls.crt --webhook-key-file tls.key]
  [--state-url URL] [--master-key-file FILE (state tokens; with --state-url also keyspace cleanup)] [--router-url URL]
  [--registry-url URL[,URL] (orrery-registry: every function worker registers there, which is how routers find it)]
  [--runtime-image ${DEFAULT_RUNTIME_IMAGE}] [--pool-idle-timeout 120s (specialized pool pods without traffic are deleted)]
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
${AUTOSCALER_USAGE}`;

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
        'state-url': { type: 'string' },
        'master-key-file': { type: 'string' },
        'router-url': { type: 'string' },
        'runtime-image': { type: 'string', default: DEFAULT_RUNTIME_IMAGE },
        'registry-url': { type: 'string' },
        'pool-idle-timeout': { type: 'string', default: '120s' },
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
        ...AUTOSCALER_FLAGS,
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
  const registryUrls = (values['registry-url'] ?? '').split(',').filter(Boolean);
  for (const u of registryUrls) {
    if (!URL.canParse(u) || !/^https?:$/.test(new URL(u).protocol)) {
      process.stderr.write(`orrery-operator: --registry-url ${JSON.stringify(u)} is not an http(s) URL\n`);
      process.exit(2);
    }
  }
  let kpa;
  try {
    kpa = kpaDefaultsFromFlags(values);
  } catch (err) {
    process.stderr.write(`orrery-operator: ${(err as Error).message}\n${KUBERNETES_USAGE}\n`);
    process.exit(2);
  }
  const log = (msg: string, fields: Record<string, unknown> = {}) =>
    process.stderr.write(`${JSON.stringify({ time: new Date().toISOString(), component: 'orrery-operator', backend: 'kubernetes', msg, ...fields })}\n`);
  const fail = (msg: string): never => {
    process.stderr.write(`orrery-operator: ${msg}\n`);
    process.exit(2);
  };

  const client = new KubeClient(kubeConfig(values), { log: (msg) => log(msg) });
  // One identity per process (the pod's name from the downward API, else the host name, plus a
  // random suffix): a restarted container must not resume the term of the process it replaces.
  const identity = values.identity ?? `${process.env.POD_NAME || hostname()}-${randomBytes(4).toString('hex')}`;
  const masterKey = values['master-key-file'] ? readMasterKeyFile(values['master-key-file']) : undefined;
  // Registry write credentials: the key workers' registration credentials derive from (and the
  // previous one during a rotation), and the write tokens, for the registries this operator runs.
  const registryAuth = (() => {
    try {
      const keys = [values['registry-master-key-file'], values['previous-registry-master-key-file']].filter((f): f is string => !!f).map(readMasterKeyFile);
      if (values['previous-registry-master-key-file'] && !values['registry-master-key-file']) fail('--previous-registry-master-key-file needs --registry-master-key-file (the new key)');
      const tokensFile = values['registry-write-tokens-file'];
      return { masterKeys: keys, writeTokensToml: tokensFile ? readFileSync(tokensFile, 'utf8') : undefined, requireWriteTokens: values['require-registry-write-tokens'] };
    } catch (err) {
      return fail(`registry write credentials: ${(err as Error).message}`);
    }
  })();

  // The platform's APIs over the CRDs. Reads and writes go to the API server, so every replica
  // serves them, leader or not. Tokens are files (mounted Secrets), read once at start.
  const readToken = (flag: 'store-token-file') => {
    const file = values[flag];
    if (!file) return undefined;
    try {
      return readFileSync(file, 'utf8').trim();
    } catch (err) {
      return fail(`cannot read --${flag}: ${(err as Error).message}`);
    }
  };
  const readAdminToken = () => {
    try {
      return values['admin-token-file'] ? readAdminTokenFile(values['admin-token-file']) : undefined;
    } catch (err) {
      return fail((err as Error).message);
    }
  };
  if (!registryUrls.length) log('no --registry-url: function workers register nowhere, so routers that discover workers through the registry will not find them');
  if (registryUrls.length && !registryAuth.masterKeys.length) log('no --registry-master-key-file: workers get no registration credential, and a registry refuses every write under orrery.functions. without one, so routers will not find them');
  const deleteKeyspace = values['state-url'] && masterKey ? createKeyspaceDeleter({ stateUrl: values['state-url'], masterKey }) : undefined;
  const store = createKubernetesResourceStore({ client, namespace: values.namespace });
  const databaseUrl = values['database-url'] ?? process.env.DATABASE_URL;
  if (!databaseUrl) log('no --database-url or DATABASE_URL: the admin API keeps its audit log, users and sessions in memory (lost on restart, not shared between replicas)');
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
  const elected = new ElectedOperator({
    client,
    kpa,
    namespace: values.namespace,
    masterKey,
    stateUrl: values['state-url'],
    routerUrl: values['router-url'],
    runtimeImage: values['runtime-image'],
    registryUrls,
    registrationCredential: registrationCredentials(registryAuth.masterKeys[0]),
    pool: { idleTimeoutMs: poolIdleTimeoutMs },
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
      const registries = startKubernetesRegistryClusters(client, store, { registryImage: values['registry-image'], auth: registryAuth, log });
      const syncs = startKubernetesStateSyncs(client, store, { log });
      const failed = (what: string) => (err: unknown) => log(`${what} did not start`, { error: (err as Error).message });
      registries.catch(failed('RegistryCluster reconciler'));
      syncs.catch(failed('StateSync reconciler'));
      return {
        stop: () => {
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
  const webhook =
    values['webhook-port'] !== undefined
      ? await startWebhookServer({
          host: values['webhook-host'] ?? values.host,
          port: Number(values['webhook-port']),
          tls: values['webhook-cert-file'] ? { certFile: values['webhook-cert-file'], keyFile: values['webhook-key-file']! } : undefined,
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
  if (webhook) {
    environments.start();
    functions.start();
  }

  // The KPA (and the pool executor) run on the leader; routers may reach any replica. Same
  // bearer token as the store, as in local mode.
  const controlAuthorized = createBearerTokenGuard(storeToken);
  const toLeader = createLeaderForwarding({ identity, local: () => elected.control, leaderUrl: () => elected.leaderUrl });
  const server = createServer((req, res) => {
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
    routerPods?.stop();
    await webhook?.close();
    server.closeAllConnections();
    server.close();
    await store.close();
    await db.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
