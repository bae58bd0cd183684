/**
 * StateSync on the Kubernetes backend against the real API server and controller manager, with
 * real router pods (image `orrery/router`) and a real Redis pod (image `redis:7`) run by the
 * process kubelet. The settings land in a ConfigMap and on the router Deployment (env + settings
 * hash, a server-side apply under the StateSync's own field manager, merged by the API server into
 * the chart's container by name), the Deployment rolls, the new router pods connect to Redis, and
 * each pod's real statesync status (GET /v1/stats on its admin port, at its pod IP) is published.
 * A settings change rolls again; deleting the StateSync takes its env and annotation back off and
 * leaves the chart's container and env as they were.
 */
import { waitFor } from '@orrery/etcdcluster';
import type { StateSync } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, auditEvents, createNamespace, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { join } from 'node:path';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import type { StateSyncReconciler } from '../../state-sync/state-sync-reconciler.ts';
import { startKubernetesStateSyncs } from './kube-state-sync-backend.ts';
import { STATESYNC_FIELD_MANAGER } from './render/state-sync.ts';
import { createRedis, createRoutesConfigMap, defaultServiceAccount, routerDeployment, routerPod } from './testing/kube-fixtures.ts';

const ROUTER_LABELS = { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/component': 'router' };
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let NS = '';
let dispose: () => Promise<void> = async () => {};
let client: KubeClient;
let store: ResourceStore;
let reconciler: StateSyncReconciler | undefined;

const deployment = async () => (await client.get('apps/v1', 'Deployment', NS, 'orrery-router')) as Any;
const template = async () => (await deployment()).spec.template as Any;
const hashOf = async () => (await template()).metadata?.annotations?.['orrery.dev/statesync-hash'] as string | undefined;
const routerContainer = async (): Promise<Any> => ((await template()).spec.containers as Any[]).find((c) => c.name === 'router') as Any;
const current = async () => (await store.get('StateSync', NS, 'routers')) as StateSync;
const livePods = async () => (await client.list<KubeObject & { status?: Any }>('v1', 'Pod', NS, 'app.kubernetes.io/component=router')).items.filter((p) => !p.metadata.deletionTimestamp);

/** The user's StateSync, applied under a field manager of its own (so the audit log tells its writes from the reconciler's). */
async function applyStateSync(keyPrefix: string): Promise<void> {
  const ss = { apiVersion: 'orrery.dev/v1alpha1', kind: 'StateSync', metadata: { namespace: NS, name: 'routers' }, spec: { target: { component: 'router' }, redis: { urlSecretRef: { name: 'redis', key: 'url' } }, keyPrefix, syncPeriod: '2s' } };
  await client.objects.patch(ss, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);
}

/** Waits until the Deployment rolled out `hash` and all of its replicas run it. */
async function rolledOut(timeoutMs = 150_000): Promise<void> {
  await waitFor('router Deployment rolled out', timeoutMs, async () => {
    const d = await deployment();
    const s = d.status ?? {};
    const done = s.observedGeneration >= d.metadata.generation && s.updatedReplicas === d.spec.replicas && s.readyReplicas === d.spec.replicas && (s.replicas ?? 0) === d.spec.replicas;
    return done ? true : undefined;
  }, undefined, 500);
}

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('statesync'));
  store = createKubernetesResourceStore({ client, namespace: NS, rewatchMs: 100 });
  await defaultServiceAccount(client, NS);
  const redisUrl = await createRedis(client, NS);
  await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'redis', namespace: NS }, stringData: { url: redisUrl } });
  await createRoutesConfigMap(client, NS);
  // What the chart installs, written by helm (its own field manager), with an env var of its own.
  await client.objects.create(routerDeployment(NS, 'orrery-router', 2, { labels: ROUTER_LABELS, adminPort: 9090 }), undefined, undefined, 'helm');
  // Someone else's pod that does not match the target: never read.
  await client.create(routerPod(NS, 'statesvc-0', { labels: { 'app.kubernetes.io/name': 'orrery', 'app.kubernetes.io/component': 'statesvc' }, adminPort: 9090 }));
  await rolledOut();
  await applyStateSync('orrery');
  reconciler = await startKubernetesStateSyncs(client, store, { intervalMs: 300 });
}, 240_000);

afterAll(async () => {
  await reconciler?.stop();
  await store?.close?.();
  await dispose();
}, 60_000);

describe('StateSync on Kubernetes (real API server, real router and Redis pods)', () => {
  it('renders the settings into a ConfigMap and the router Deployment env with its own server-side apply, merged into the chart’s container', { timeout: 60_000 }, async () => {
    await waitFor('settings hash on the router pod template', 30_000, async () => hashOf());
    const cm = (await client.get('v1', 'ConfigMap', NS, 'routers-statesync')) as Any;
    expect(cm.data).toMatchObject({ ORRERY_REDIS_KEY_PREFIX: 'orrery', ORRERY_SYNC_PERIOD_MS: '2000' });
    const ss = await current();
    expect(cm.metadata.ownerReferences[0]).toMatchObject({ kind: 'StateSync', name: 'routers', uid: ss.metadata.uid });
    // The API server merged our container entry into the chart's by name (listType=map):
    // one router container, the chart's image, args and env kept, ours added.
    const containers = (await template()).spec.containers as Any[];
    expect(containers.map((c) => c.name)).toEqual(['router']);
    const c = await routerContainer();
    expect(c.image).toBe('orrery/router:test');
    expect(c.args).toContain('--routes-file=/etc/orrery-routes/routes.yaml');
    expect(c.env).toContainEqual({ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } });
    expect(c.env).toContainEqual({ name: 'ORRERY_REDIS_URL', valueFrom: { secretKeyRef: { name: 'redis', key: 'url' } } });
    // A server-side apply under the StateSync's own manager, forced; it owns no replicas, selector or image.
    const d = await deployment();
    const mine = (d.metadata.managedFields as Any[]).find((f) => f.manager === STATESYNC_FIELD_MANAGER)!;
    expect(mine).toMatchObject({ operation: 'Apply' });
    expect(JSON.stringify(mine.fieldsV1)).not.toMatch(/f:replicas|f:selector|f:image/);
    expect((d.metadata.managedFields as Any[]).find((f) => f.manager === 'helm')).toMatchObject({ operation: 'Update' });
    const patches = auditEvents((e) => e.verb === 'patch' && e.objectRef?.namespace === NS && e.objectRef.resource === 'deployments' && e.objectRef.name === 'orrery-router');
    expect(patches.length).toBeGreaterThan(0);
    for (const p of patches) {
      const q = new URL(p.requestURI, 'https://x').searchParams;
      expect([q.get('fieldManager'), q.get('force')]).toEqual([STATESYNC_FIELD_MANAGER, 'true']);
    }
  });

  it('the Deployment rolls, the new router pods sync through Redis, and each pod’s status is published', { timeout: 180_000 }, async () => {
    await rolledOut();
    const pods = await livePods();
    expect(pods).toHaveLength(2);
    const names = pods.map((p) => p.metadata.name).sort();
    const ss = await waitFor('both replicas synced in the status', 90_000, async () => {
      const s = await current();
      const rows = s.status?.replicas ?? [];
      const ready = s.status?.conditions?.find((c) => c.type === 'Ready');
      const sameReplicas = [...new Set(rows.map((r) => r.replica))].sort().join() === names.join();
      return sameReplicas && rows.length === 4 && ready?.status === 'True' ? s : undefined;
    }, undefined, 500);
    const rows = ss.status!.replicas!;
    expect(rows.map((r) => `${r.replica}/${r.syncable}`).sort()).toEqual(names.flatMap((n) => [`${n}/endpoint-quarantine`, `${n}/sticky-owners`]));
    for (const r of rows) expect(r.lastSuccessfulCycle).toBeTruthy();
    expect(rows.some((r) => r.replica === 'statesvc-0')).toBe(false);
    expect(ss.status?.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Synced' });
    // The reconciler writes status only through the status subresource; the spec is the user's alone.
    const writes = auditEvents((e) => e.objectRef?.namespace === NS && e.objectRef.resource === 'statesyncs' && ['patch', 'update', 'create'].includes(e.verb));
    const manager = (e: (typeof writes)[number]) => new URL(e.requestURI, 'https://x').searchParams.get('fieldManager');
    expect(writes.filter((e) => e.objectRef?.subresource === 'status').length).toBeGreaterThan(0);
    expect(writes.filter((e) => e.objectRef?.subresource !== 'status').map(manager)).toEqual(['kubectl']);
  });

  it('rolls the pods again when the settings change', { timeout: 180_000 }, async () => {
    const before = await hashOf();
    const podsBefore = (await livePods()).map((p) => p.metadata.name);
    await applyStateSync('orrery-b');
    await waitFor('a new settings hash', 30_000, async () => ((await hashOf()) !== before ? true : undefined));
    expect(((await client.get('v1', 'ConfigMap', NS, 'routers-statesync')) as Any).data.ORRERY_REDIS_KEY_PREFIX).toBe('orrery-b');
    await rolledOut();
    const podsAfter = (await livePods()).map((p) => p.metadata.name);
    expect(podsAfter.some((p) => podsBefore.includes(p))).toBe(false);
  });

  it('takes its env and annotation back off when the StateSync is deleted; the chart’s container and env stay', { timeout: 120_000 }, async () => {
    await store.delete('StateSync', NS, 'routers');
    await waitFor('annotation removed', 30_000, async () => ((await hashOf()) === undefined ? true : undefined));
    const c = await routerContainer();
    expect(c).toBeDefined();
    expect(c.image).toBe('orrery/router:test');
    expect(c.env).toEqual([{ name: 'POD_NAME', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } }]);
    expect((await deployment()).metadata.managedFields.some((f: Any) => f.manager === STATESYNC_FIELD_MANAGER)).toBe(false);
    // The real garbage collector removes the ConfigMap the StateSync owned.
    await waitFor('settings ConfigMap collected', 60_000, async () => ((await client.get('v1', 'ConfigMap', NS, 'routers-statesync')) ? undefined : true), undefined, 500);
    await rolledOut();
  });
});
