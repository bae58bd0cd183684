/**
 * Components, the third wiring step of the Kubernetes backend: what every replica serves, leader
 * or not. The platform's APIs run over the CRDs (reads and writes go to the API server), so every
 * replica answers them; the admin API keeps its audit log, users and sessions in the database.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { KubeConfig } from '@kubernetes/client-node';
import { connect, migrate } from '@orrery/db';
import { createPlatformApi } from '../../../http/platform-api.ts';
import { exitStartFailed } from '../../../wiring/command-line.ts';
import { KubeClient, kubeConfigFor } from '../kube-client.ts';
import { createKubernetesResourceStore } from '../kube-resource-store.ts';
import { RouterPods } from '../router-pods.ts';
import type { KubeOperatorConfig } from './kube-config.ts';
import { readKubeCredentials } from './kube-credentials.ts';

type Log = (msg: string, fields?: Record<string, unknown>) => void;

export type KubeComponents = Awaited<ReturnType<typeof createKubeComponents>>;

function kubeConfig(cluster: KubeOperatorConfig['cluster']): KubeConfig {
  if (cluster.server) return kubeConfigFor({ server: cluster.server });
  const kc = new KubeConfig();
  if (cluster.kubeconfig) kc.loadFromFile(cluster.kubeconfig);
  else kc.loadFromCluster();
  return kc;
}

export async function createKubeComponents(config: KubeOperatorConfig, log: Log, warn: Log) {
  const client = new KubeClient(kubeConfig(config.cluster), { log: (msg) => log(msg) });
  // One identity per process (the pod's name from the downward API, else the host name, plus a
  // random suffix): a restarted container must not resume the term of the process it replaces.
  const identity = config.identity ?? `${process.env.POD_NAME || hostname()}-${randomBytes(4).toString('hex')}`;
  const credentials = await readKubeCredentials(config, client, (msg) => log(msg));
  if (!config.registryUrls.length) warn('no --registry-url: function workers register nowhere, so routers that discover workers through the registry will not find them');
  if (config.registryUrls.length && !credentials.registryAuth.masterKeys.length) {
    warn('no --registry-master-key-file: workers get no registration credential, and a registry refuses every write under orrery.functions. without one, so routers will not find them');
  }

  const store = createKubernetesResourceStore({ client, namespace: config.namespace });
  if (!credentials.databaseUrl) warn('no --database-url or DATABASE_URL: the admin API keeps its audit log, users and sessions in memory (lost on restart, not shared between replicas)');
  const db = connect({ url: credentials.databaseUrl ?? '' });
  await migrate(db);
  // Without a fixed list, every running router pod is asked (the console sums their counters).
  const routerPods = config.routerAdminUrls.length ? undefined : new RouterPods(client, { ...config.routerPods, log });
  routerPods?.start();
  const platformApi = await createPlatformApi({
    store,
    db,
    storeToken: credentials.storeToken,
    adminToken: credentials.adminToken,
    usersFile: config.usersFile,
    trustedProxies: config.trustedProxies,
    statesvc: config.stateUrl ? { url: config.stateUrl, masterKey: credentials.masterKey } : undefined,
    routerAdminUrls: () => routerPods?.adminUrls() ?? config.routerAdminUrls,
    log,
  }).catch((err: unknown) => exitStartFailed((err as Error).message));

  return { client, identity, credentials, store, db, routerPods, platformApi };
}
