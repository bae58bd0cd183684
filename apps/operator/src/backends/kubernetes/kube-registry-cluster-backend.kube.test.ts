/**
 * The Kubernetes placement of a RegistryCluster on its own, against a real API server and
 * controller manager (the reconciler's etcd calls are not involved here): what it applies, how it
 * grows and shrinks the StatefulSet, and what a later operator leader reads back. No storage
 * class exists in this test, so the members' pods stay Pending on their claims.
 */
import { RegistryClusterSchema, type RegistryCluster } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { adminKubeConfig, auditEvents, createNamespace, eventually, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { KubeRegistryClusterBackend } from './kube-registry-cluster-backend.ts';

let NS = '';
let dispose: () => Promise<void>;
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let client: KubeClient;
let rc: RegistryCluster;

const get = async (apiVersion: string, kind: string, name: string) => (await client.get<KubeObject>(apiVersion, kind, NS, name)) as Any | undefined;
const replicas = async () => ((await get('apps/v1', 'StatefulSet', 'reg'))?.spec as Any | undefined)?.replicas as number | undefined;
const scaleCalls = () => auditEvents((e) => e.verb === 'patch' && e.objectRef?.namespace === NS && e.objectRef.resource === 'statefulsets' && e.objectRef.subresource === 'scale').length;
const deletes = () => auditEvents((e) => e.verb === 'delete' && e.objectRef?.namespace === NS && e.user.username !== 'system:serviceaccount:kube-system:generic-garbage-collector').map((e) => `${e.objectRef!.resource}/${e.objectRef!.name}`);
const configs = async () => (await get('v1', 'ConfigMap', 'reg-etcd-members'))!.data as Record<string, string>;
const open = () => new KubeRegistryClusterBackend({ client, registryImage: 'orrery/registry:t' }).open(rc, () => {});

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('infra'));
  // A stored RegistryCluster, so owner references carry the API server's uid.
  const stored = await client.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: NS }, spec: { replicas: 3 } });
  rc = RegistryClusterSchema.parse(stored);
});

afterAll(async () => {
  await dispose?.();
});

describe('Kubernetes RegistryCluster placement (real API server)', () => {
  it('applies the cluster objects, then grows the StatefulSet only as members are started', async () => {
    const p = open();
    await p.refresh!(rc);
    expect(await get('apps/v1', 'StatefulSet', 'reg')).toBeDefined();
    expect(await replicas()).toBe(0);
    expect(scaleCalls()).toBe(0);
    for (const k of [1, 2, 3]) await p.members.create(`reg-${k}`, k);
    const initial = p.members.list().map((m) => `${m.name}=${m.peerURL}`).join(',');
    expect(initial).toBe([1, 2, 3].map((k) => `reg-${k}=http://reg-${k}.reg-etcd.${NS}.svc:2380`).join(','));
    for (const k of [1, 2, 3]) {
      await p.members.start(`reg-${k}`, initial, 'new');
      expect(await replicas()).toBe(k);
    }
    expect(scaleCalls()).toBe(3);
    expect(parseYaml((await configs())['reg-2.yaml']!)).toMatchObject({ name: 'reg-2', 'initial-cluster': initial, 'initial-cluster-state': 'new' });
    const secret = (await get('v1', 'Secret', 'reg-registry-tokens'))!;
    expect(Object.keys(secret.data as object).sort()).toEqual(['admin-token', 'prometheus-sd-token', 'replication-token']);
    for (const [apiVersion, kind, name] of [['v1', 'Service', 'reg-etcd'], ['policy/v1', 'PodDisruptionBudget', 'reg-etcd'], ['v1', 'Service', 'reg-registry']] as const) {
      expect((await get(apiVersion, kind, name))?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'RegistryCluster', uid: rc.metadata.uid });
    }
    // The real StatefulSet controller made the members' pods (ordinals from 1) with their claims.
    await eventually('member pods', async () => (await client.list('v1', 'Pod', NS, 'orrery.dev/component=etcd')).items.length === 3);
    expect((await client.list('v1', 'Pod', NS, 'orrery.dev/component=etcd')).items.map((p) => p.metadata.name).sort()).toEqual(['reg-1', 'reg-2', 'reg-3']);
  });

  it('a new leader reads the members back, keeps first-start configs and never regenerates tokens', async () => {
    const tokensBefore = (await get('v1', 'Secret', 'reg-registry-tokens'))!.data;
    const p = open();
    await p.refresh!(rc);
    expect(p.members.list().map((m) => m.name)).toEqual(['reg-1', 'reg-2', 'reg-3']);
    expect(p.members.hasData('reg-3')).toBe(true);
    const before = (await configs())['reg-1.yaml'];
    await p.members.start('reg-1', 'reg-1=http://elsewhere:2380', 'existing');
    expect((await configs())['reg-1.yaml']).toBe(before);
    expect((await get('v1', 'Secret', 'reg-registry-tokens'))!.data).toEqual(tokensBefore);
  });

  it('joins a learner with the MemberAdd list, and forgets members by shrinking or restarting their slot', async () => {
    const p = open();
    await p.refresh!(rc);
    await p.members.create('reg-4', 4);
    const fromMemberAdd = [1, 2, 3, 4].map((k) => `reg-${k}=http://reg-${k}.reg-etcd.${NS}.svc:2380`).join(',');
    await p.members.start('reg-4', fromMemberAdd, 'existing');
    expect(await replicas()).toBe(4);
    expect(parseYaml((await configs())['reg-4.yaml']!)).toMatchObject({ 'initial-cluster': fromMemberAdd, 'initial-cluster-state': 'existing' });

    // The highest ordinal: the StatefulSet shrinks and its claim goes.
    await p.members.forget('reg-4');
    expect(await replicas()).toBe(3);
    expect((await configs())['reg-4.yaml']).toBeUndefined();
    expect(deletes()).toContain('persistentvolumeclaims/data-reg-4');

    // A lower ordinal keeps the StatefulSet size: its pod restarts empty, its claim goes.
    const n = scaleCalls();
    await p.members.forget('reg-2');
    expect(scaleCalls()).toBe(n);
    expect(await replicas()).toBe(3);
    expect(deletes()).toEqual(expect.arrayContaining(['pods/reg-2', 'persistentvolumeclaims/data-reg-2']));
    expect(JSON.parse((await configs())['members.json']!)).toEqual([{ name: 'reg-1', ordinal: 1 }, { name: 'reg-3', ordinal: 3 }]);
  });

  it('points the registry Deployment at the voters; it is not running (and has no URL) while its pods are not ready', async () => {
    const p = open();
    await p.refresh!(rc);
    await p.api!.ensure([`http://reg-3.reg-etcd.${NS}.svc:2379`, `http://reg-1.reg-etcd.${NS}.svc:2379`]);
    const c = ((await get('apps/v1', 'Deployment', 'reg-registry'))!.spec as Any).template.spec.containers[0];
    expect(c.args).toContain(`--etcd-endpoints=http://reg-1.reg-etcd.${NS}.svc:2379,http://reg-3.reg-etcd.${NS}.svc:2379`);
    // No etcd member can start here (their claims stay Pending), so the registry never gets ready
    // and no URL is reported for it.
    await p.refresh!(rc);
    expect(p.api!.running()).toBe(false);
    expect(p.api!.url).toBeUndefined();
    expect(await get('v1', 'Service', 'reg-registry')).toBeDefined();
  });
});
