/**
 * StateSync on the Kubernetes backend against the fake-apiserver: the settings land in a
 * ConfigMap and on the router Deployment (env + settings-hash annotation, a server-side apply
 * under the StateSync's field manager), a settings change rolls the pods again, each router pod's
 * statesync status is read over its admin port and published, and deleting the StateSync takes
 * the env back off. The two "router pods" are stub admin servers on 127.0.0.2 and 127.0.0.3
 * (same port, as pods on one port with their own IPs), answering GET /v1/stats as the router does.
 * Limit: the fake-apiserver treats lists as atomic, so what it stores for the container list after
 * the patch is not what a real server would (which merges by container and env name); the tests
 * check the patch itself and the fields the StateSync owns.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { waitFor } from '@orrery/etcdcluster';
import type { StateSync } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import { type KubeStateSyncReconciler, startKubernetesStateSyncs } from './kube-state-syncs.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

const NS = 'orrery';
const ROUTER_LABELS = { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/component': 'router' };
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: FakeApiServer;
let store: ResourceStore;
let reconciler: KubeStateSyncReconciler;
const servers: Server[] = [];

function statsServer(host: string, port: number, pushed: number): Promise<Server> {
  const s = createServer((req, res) => {
    if (req.url !== '/v1/stats') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(
      JSON.stringify({
        statesync: {
          syncables: [
            { syncable: 'router-quarantine', lastSuccessfulCycle: '2026-11-30T20:00:00.000Z', entitiesPulled: 1, entitiesPushed: pushed, backoffSeconds: 0 },
            { syncable: 'router-sticky-owners', lastSuccessfulCycle: '2026-11-30T20:00:00.000Z', entitiesPulled: 0, entitiesPushed: 0, backoffSeconds: 0 },
          ],
        },
      }),
    );
  });
  servers.push(s);
  return new Promise((resolve, reject) => {
    s.once('error', reject);
    s.listen(port, host, () => resolve(s));
  });
}

const deployment = () => fake.get('apps/v1', 'Deployment', NS, 'orrery-router') as Any;
const hashOf = () => deployment().spec.template.metadata?.annotations?.['orrery.dev/statesync-hash'] as string | undefined;
const current = async () => (await store.get('StateSync', NS, 'routers')) as StateSync;

async function applyStateSync(keyPrefix: string): Promise<void> {
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'StateSync', metadata: { namespace: NS, name: 'routers' }, spec: { target: { component: 'router' }, redis: { urlSecretRef: { name: 'redis', key: 'url' } }, keyPrefix, syncPeriod: '2s' } });
}

beforeAll(async () => {
  fake = await startFakeApiServer();
  const client = new KubeClient(kubeConfigFor({ server: fake.url }));
  store = createKubernetesResourceStore({ client, rewatchMs: 100 });
  const first = await statsServer('127.0.0.2', 0, 3);
  const port = (first.address() as AddressInfo).port;
  await statsServer('127.0.0.3', port, 5);
  // What the chart installs (written by another manager, as helm would).
  fake.put(
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'orrery-router', namespace: NS, labels: ROUTER_LABELS },
      spec: { replicas: 2, selector: { matchLabels: ROUTER_LABELS }, template: { metadata: { labels: ROUTER_LABELS }, spec: { containers: [{ name: 'router', image: 'orrery/router:1' }] } } },
    },
    'helm',
  );
  for (const [i, ip] of ['127.0.0.2', '127.0.0.3'].entries()) {
    fake.put({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `orrery-router-${i}`, namespace: NS, labels: ROUTER_LABELS },
      spec: { containers: [{ name: 'router', ports: [{ name: 'http', containerPort: 8080 }, { name: 'admin', containerPort: port }] }] },
      status: { phase: 'Running', podIP: ip },
    });
  }
  // Someone else's pod that does not match: never read.
  fake.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'statesvc-0', namespace: NS, labels: { 'app.kubernetes.io/component': 'statesvc' } }, status: { phase: 'Running', podIP: '127.0.0.9' } });
  await applyStateSync('orrery');
  reconciler = await startKubernetesStateSyncs(client, store, { intervalMs: 300 });
}, 30_000);

afterAll(async () => {
  await reconciler?.stop();
  await store?.close?.();
  await fake?.close();
  for (const s of servers) s.close();
});

describe('StateSync on Kubernetes (fake-apiserver)', () => {
  it('renders the settings into a ConfigMap and the router Deployment env, with server-side apply', async () => {
    await waitFor('settings hash on the router pod template', 15_000, async () => hashOf());
    const cm = fake.get('v1', 'ConfigMap', NS, 'routers-statesync') as Any;
    expect(cm.data).toMatchObject({ ORRERY_REDIS_KEY_PREFIX: 'orrery', ORRERY_SYNC_PERIOD_MS: '2000' });
    expect(cm.metadata.ownerReferences[0]).toMatchObject({ kind: 'StateSync', name: 'routers' });
    const env = deployment().spec.template.spec.containers[0].env as Any[];
    expect(env).toContainEqual({ name: 'ORRERY_REDIS_URL', valueFrom: { secretKeyRef: { name: 'redis', key: 'url' } } });
    const patch = fake.requests.find((r) => r.method === 'PATCH' && r.path === `/apis/apps/v1/namespaces/${NS}/deployments/orrery-router`);
    expect(patch).toMatchObject({ contentType: 'application/apply-patch+yaml', query: { fieldManager: 'orrery-operator-statesync', force: 'true' } });
    // The operator's patch names no replicas, selector or image: those stay the chart's.
    expect(patch!.body).not.toMatch(/replicas|selector|image/);
  });

  it('publishes each router pod status() in the StateSync status', async () => {
    const ss = await waitFor('two replicas in status', 15_000, async () => {
      const s = await current();
      return (s.status?.replicas?.length ?? 0) === 4 ? s : undefined;
    });
    const rows = ss.status!.replicas!;
    expect(rows.map((r) => `${r.replica}/${r.syncable}`).sort()).toEqual([
      'orrery-router-0/endpoint-quarantine',
      'orrery-router-0/sticky-owners',
      'orrery-router-1/endpoint-quarantine',
      'orrery-router-1/sticky-owners',
    ]);
    expect(rows.find((r) => r.replica === 'orrery-router-1' && r.syncable === 'endpoint-quarantine')?.entitiesPushed).toBe(5);
    expect(ss.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Synced' });
    expect(fake.requests.some((r) => r.method === 'PATCH' && r.path.endsWith('/statesyncs/routers/status'))).toBe(true);
  });

  it('rolls the pods again when the settings change', async () => {
    const before = hashOf();
    await applyStateSync('orrery-b');
    await waitFor('a new settings hash', 15_000, async () => (hashOf() !== before ? true : undefined));
    expect((fake.get('v1', 'ConfigMap', NS, 'routers-statesync') as Any).data.ORRERY_REDIS_KEY_PREFIX).toBe('orrery-b');
  });

  it('takes its env and annotation back off when the StateSync is deleted', async () => {
    await store.delete('StateSync', NS, 'routers');
    await waitFor('annotation removed', 15_000, async () => (hashOf() === undefined ? true : undefined));
    // The fake-apiserver keeps lists atomic, so it drops the whole container list the patch took over;
    // a real API server merges `containers` and `env` by name and keeps the chart's container.
    const env = (deployment().spec.template.spec?.containers?.[0]?.env ?? []) as Any[];
    expect(env.some((e) => String(e.name).startsWith('ORRERY_REDIS'))).toBe(false);
  });
});
