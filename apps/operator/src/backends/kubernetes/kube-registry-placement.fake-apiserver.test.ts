/**
 * The Kubernetes placement of a RegistryCluster on its own, against the fake-apiserver (no etcd:
 * the reconciler's etcd calls are not involved here): what it applies, how it grows and shrinks
 * the StatefulSet, and what a later operator leader reads back.
 */
import { RegistryClusterSchema, type RegistryCluster } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { KubeRegistryBackend } from './kube-registry-placement.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

const NS = 'infra';
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: FakeApiServer;
let client: KubeClient;
let rc: RegistryCluster;

const scales = () => fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith('/statefulsets/reg/scale')).map((r) => (JSON.parse(r.body) as Any).spec.replicas as number);
const deletes = () => fake.requests.filter((r) => r.method === 'DELETE').map((r) => r.path.split('/').slice(-2).join('/'));
const configs = () => (fake.get('v1', 'ConfigMap', NS, 'reg-etcd-members') as Any).data as Record<string, string>;
const open = () => new KubeRegistryBackend({ client, registryImage: 'orrery/registry:t' }).open(rc, () => {});

beforeAll(async () => {
  fake = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: fake.url }));
  // A stored RegistryCluster, so owner references carry the API server's uid.
  const stored = fake.put({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: NS }, spec: { replicas: 3 } });
  rc = RegistryClusterSchema.parse(stored);
});

afterAll(async () => {
  await fake?.close();
});

describe('Kubernetes RegistryCluster placement (fake-apiserver)', () => {
  it('applies the cluster objects, then grows the StatefulSet only as members are started', async () => {
    const p = open();
    await p.refresh!(rc);
    expect(fake.get('apps/v1', 'StatefulSet', NS, 'reg')).toBeDefined();
    expect(scales()).toEqual([]);
    for (const k of [1, 2, 3]) await p.members.create(`reg-${k}`, k);
    const initial = p.members.list().map((m) => `${m.name}=${m.peerURL}`).join(',');
    expect(initial).toBe([1, 2, 3].map((k) => `reg-${k}=http://reg-${k}.reg-etcd.infra.svc:2380`).join(','));
    for (const k of [1, 2, 3]) await p.members.start(`reg-${k}`, initial, 'new');
    expect(scales()).toEqual([1, 2, 3]);
    expect((fake.get('apps/v1', 'StatefulSet', NS, 'reg') as Any).spec.replicas).toBe(3);
    expect(parseYaml(configs()['reg-2.yaml']!)).toMatchObject({ name: 'reg-2', 'initial-cluster': initial, 'initial-cluster-state': 'new' });
    const secret = fake.get('v1', 'Secret', NS, 'reg-registry-tokens') as Any;
    expect(Object.keys(secret.data).sort()).toEqual(['admin-token', 'prometheus-sd-token', 'replication-token']);
    for (const [apiVersion, kind, name] of [['v1', 'Service', 'reg-etcd'], ['policy/v1', 'PodDisruptionBudget', 'reg-etcd'], ['v1', 'Service', 'reg-registry']] as const) {
      expect(fake.get(apiVersion, kind, NS, name)?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'RegistryCluster', uid: rc.metadata.uid });
    }
  });

  it('a new leader reads the members back, keeps first-start configs and never regenerates tokens', async () => {
    const tokensBefore = (fake.get('v1', 'Secret', NS, 'reg-registry-tokens') as Any).data;
    const p = open();
    await p.refresh!(rc);
    expect(p.members.list().map((m) => m.name)).toEqual(['reg-1', 'reg-2', 'reg-3']);
    expect(p.members.hasData('reg-3')).toBe(true);
    const before = configs()['reg-1.yaml'];
    await p.members.start('reg-1', 'reg-1=http://elsewhere:2380', 'existing');
    expect(configs()['reg-1.yaml']).toBe(before);
    expect((fake.get('v1', 'Secret', NS, 'reg-registry-tokens') as Any).data).toEqual(tokensBefore);
  });

  it('joins a learner with the MemberAdd list, and forgets members by shrinking or restarting their slot', async () => {
    const p = open();
    await p.refresh!(rc);
    await p.members.create('reg-4', 4);
    const fromMemberAdd = [1, 2, 3, 4].map((k) => `reg-${k}=http://reg-${k}.reg-etcd.infra.svc:2380`).join(',');
    await p.members.start('reg-4', fromMemberAdd, 'existing');
    expect(scales().at(-1)).toBe(4);
    expect(parseYaml(configs()['reg-4.yaml']!)).toMatchObject({ 'initial-cluster': fromMemberAdd, 'initial-cluster-state': 'existing' });

    // The highest ordinal: the StatefulSet shrinks and its claim goes.
    await p.members.forget('reg-4');
    expect(scales().at(-1)).toBe(3);
    expect(configs()['reg-4.yaml']).toBeUndefined();
    expect(deletes()).toContain('persistentvolumeclaims/data-reg-4');

    // A lower ordinal keeps the StatefulSet size: its pod restarts empty, its claim goes.
    const n = scales().length;
    await p.members.forget('reg-2');
    expect(scales()).toHaveLength(n);
    expect(deletes()).toEqual(expect.arrayContaining(['pods/reg-2', 'persistentvolumeclaims/data-reg-2']));
    expect(JSON.parse(configs()['members.json']!)).toEqual([{ name: 'reg-1', ordinal: 1 }, { name: 'reg-3', ordinal: 3 }]);
  });

  it('points the registry Deployment at the voters and reports its URL once it is ready', async () => {
    const p = open();
    await p.refresh!(rc);
    await p.api!.ensure(['http://reg-3.reg-etcd.infra.svc:2379', 'http://reg-1.reg-etcd.infra.svc:2379']);
    const c = (fake.get('apps/v1', 'Deployment', NS, 'reg-registry') as Any).spec.template.spec.containers[0];
    expect(c.args).toContain('--etcd-endpoints=http://reg-1.reg-etcd.infra.svc:2379,http://reg-3.reg-etcd.infra.svc:2379');
    await p.refresh!(rc); // the fake marks Deployments ready at once
    expect(p.api!.running()).toBe(true);
    expect(p.api!.url).toBe('http://reg-registry.infra.svc:8080');
  });
});
