/**
 * RegistryCluster on the Kubernetes backend, 3 → 5 → 3, with nothing standing in: the operator
 * runs as a pod (image `orrery/operator`, `--backend kubernetes`, in-cluster ServiceAccount
 * credentials), so it reaches the etcd members by their DNS names (`reg-N.reg-etcd.<ns>.svc`,
 * through the hosts files the process kubelet writes) as it does in a cluster; the real
 * StatefulSet controller makes the members' pods and claims; the process kubelet runs the etcd
 * image as the cluster's own etcd build on hostPath PersistentVolumes this test provisions
 * statically (a StorageClass without a provisioner); the registry Deployment runs `orrery-registry`.
 * What the operator did is read back from the API server: objects, status, the audit log (as the
 * operator's ServiceAccount), and a watch on the StatefulSet for every replicas value it had.
 */
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PatchStrategy } from '@kubernetes/client-node';
import type { RegistryCluster } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { adminKubeConfig, auditEvents, containerLog, createNamespace, eventually, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { Informer } from './informer.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';

const NAME = 'reg';
const PV_COUNT = 6;
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let NS = '';
let dispose: () => Promise<void> = async () => {};
let client: KubeClient;
let storageClass = '';
let pvRoot = '';
let stsWatch: Informer | undefined;
/** Every spec.replicas the StatefulSet had, in order (each write is a watch event). */
const replicasSeen: number[] = [];
let operatorUser = '';

const get = async (apiVersion: string, kind: string, name: string) => (await client.get<KubeObject>(apiVersion, kind, NS, name)) as Any | undefined;
const rcNow = async () => (await get('orrery.dev/v1alpha1', 'RegistryCluster', NAME)) as RegistryCluster | undefined;
const membersConfig = async () => ((await get('v1', 'ConfigMap', `${NAME}-etcd-members`))?.data ?? {}) as Record<string, string>;
const registryArgs = async () => ((await get('apps/v1', 'Deployment', `${NAME}-registry`))?.spec.template.spec.containers[0].args ?? []) as string[];
const endpointsArg = async () => (await registryArgs()).find((a) => a.startsWith('--etcd-endpoints='))!.slice('--etcd-endpoints='.length).split(',');
const operatorLog = () => containerLog(NS, 'operator', 'operator');

async function setReplicas(replicas: number): Promise<void> {
  const rc = { apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: NS, name: NAME }, spec: { replicas, storage: { size: '1Gi', storageClassName: storageClass }, registry: { replicas: 1 } } };
  await client.objects.patch(rc, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);
}

async function waitForVoters(names: string[], timeoutMs = 180_000): Promise<RegistryCluster> {
  return eventually(
    `voters ${names.join(',')}`,
    async () => {
      const rc = await rcNow();
      const ms = rc?.status?.members ?? [];
      const voters = ms.filter((m) => m.role === 'voter' && m.health === 'healthy').map((m) => m.name).sort();
      return ms.length === names.length && voters.join() === names.join() && rc?.status?.leader ? rc : undefined;
    },
    timeoutMs,
    500,
  ).catch((err: unknown) => {
    throw new Error(`${(err as Error).message}\n--- operator log (tail) ---\n${operatorLog().split('\n').slice(-40).join('\n')}`);
  });
}

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('regcluster'));
  await defaultServiceAccount(client, NS);

  // Static provisioning: a StorageClass with no provisioner and hostPath PersistentVolumes for it.
  // Folders are made for the members' user (65532): the kubelet applies no fsGroup to hostPath.
  storageClass = `${NS}-hostpath`;
  pvRoot = join('/tmp', `orrery-kube-pv-${NS}`);
  await client.create({ apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: storageClass }, provisioner: 'kubernetes.io/no-provisioner', volumeBindingMode: 'Immediate', reclaimPolicy: 'Retain' });
  for (let i = 1; i <= PV_COUNT; i++) {
    const path = join(pvRoot, `pv-${i}`);
    mkdirSync(path, { recursive: true });
    chownSync(path, 65532, 65532);
    await client.create({
      apiVersion: 'v1',
      kind: 'PersistentVolume',
      metadata: { name: `${NS}-pv-${i}` },
      spec: { storageClassName: storageClass, capacity: { storage: '1Gi' }, accessModes: ['ReadWriteOnce'], persistentVolumeReclaimPolicy: 'Retain', hostPath: { path, type: 'Directory' } },
    });
  }

  // The operator as a pod: its ServiceAccount may do anything in this namespace (the chart's own
  // ClusterRole is the chart tests' concern); the registry master key comes from a Secret.
  operatorUser = `system:serviceaccount:${NS}:operator`;
  await client.create({ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'operator', namespace: NS } });
  await client.create({
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'operator', namespace: NS },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'cluster-admin' },
    subjects: [{ kind: 'ServiceAccount', name: 'operator', namespace: NS }],
  });
  await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'registry-master-key', namespace: NS }, stringData: { key: Buffer.alloc(32, 0x4d).toString('hex') } });

  stsWatch = new Informer(client, { apiVersion: 'apps/v1', kind: 'StatefulSet', namespace: NS });
  stsWatch.on((type, o) => {
    const r = (o.spec as { replicas?: number } | undefined)?.replicas;
    if (type !== 'DELETED' && o.metadata.name === NAME && r !== undefined && r !== replicasSeen.at(-1)) replicasSeen.push(r);
  });
  stsWatch.start();
  await stsWatch.hasSynced();

  await setReplicas(3);
  await client.create({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'operator', namespace: NS, labels: { app: 'operator' } },
    spec: {
      serviceAccountName: 'operator',
      terminationGracePeriodSeconds: 10,
      containers: [
        {
          name: 'operator',
          image: 'orrery/operator:test',
          args: [
            '--backend', 'kubernetes', '--namespace', NS, '--lease-namespace', NS, '--identity', 'op-1', '--host', '0.0.0.0', '--port', '8080',
            '--registry-image', 'orrery/registry:test', '--registry-master-key-file', '/var/run/orrery/registry-master/key',
          ],
          ports: [{ name: 'http', containerPort: 8080 }],
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 2 },
          volumeMounts: [{ name: 'registry-master', mountPath: '/var/run/orrery/registry-master', readOnly: true }],
        },
      ],
      volumes: [{ name: 'registry-master', secret: { secretName: 'registry-master-key' } }],
    },
  });
}, 120_000);

afterAll(async () => {
  stsWatch?.stop();
  await client.delete('v1', 'Pod', NS, 'operator').catch(() => undefined);
  await dispose();
  // Cluster-scoped: not removed with the namespace.
  for (let i = 1; i <= PV_COUNT; i++) await client.delete('v1', 'PersistentVolume', '', `${NS}-pv-${i}`).catch(() => undefined);
  await client.delete('storage.k8s.io/v1', 'StorageClass', '', storageClass).catch(() => undefined);
  // The namespace's pods must be gone before their volumes' folders go.
  await eventually('namespace gone', async () => !(await client.get('v1', 'Namespace', '', NS)), 120_000, 500).catch(() => undefined);
  rmSync(pvRoot, { recursive: true, force: true });
}, 180_000);

/** The core v1 Events the operator recorded on the RegistryCluster. */
const membershipEvents = async () =>
  (await client.list('v1', 'Event', NS)).items
    .map((e) => e as KubeObject & { type: string; reason: string; message: string; involvedObject: { kind: string; name: string } })
    .filter((e) => e.involvedObject.kind === 'RegistryCluster' && e.involvedObject.name === NAME);

describe('RegistryCluster on Kubernetes (the operator in a pod, etcd members run by the process kubelet)', () => {
  it('bootstraps 3 members from per-ordinal configs on statically provisioned volumes, applies its objects with server-side apply', { timeout: 240_000 }, async () => {
    const rc = await waitForVoters(['reg-1', 'reg-2', 'reg-3']);
    expect(rc.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    const cm = await membersConfig();
    for (const k of [1, 2, 3]) {
      const conf = parseYaml(cm[`reg-${k}.yaml`]!) as Record<string, string>;
      expect(conf).toMatchObject({ name: `reg-${k}`, 'initial-cluster-state': 'new', 'advertise-client-urls': `http://reg-${k}.reg-etcd.${NS}.svc:2379` });
      expect(conf['initial-cluster']!.split(',').sort()).toEqual([1, 2, 3].map((n) => `reg-${n}=http://reg-${n}.reg-etcd.${NS}.svc:2380`));
    }
    // The claims were bound to this test's volumes, and etcd keeps its data there.
    const claims = (await client.list<KubeObject & { spec?: Any; status?: Any }>('v1', 'PersistentVolumeClaim', NS)).items;
    expect(claims.map((c) => c.metadata.name).sort()).toEqual(['data-reg-1', 'data-reg-2', 'data-reg-3']);
    for (const c of claims) {
      expect(c.status?.phase).toBe('Bound');
      expect(c.spec?.storageClassName).toBe(storageClass);
    }
    const usedVolumes = readdirSync(pvRoot).filter((d) => existsSync(join(pvRoot, d, 'data', 'member')));
    expect(usedVolumes).toHaveLength(3);

    const uid = rc.metadata.uid;
    const owned = [
      ['apps/v1', 'StatefulSet', 'reg'],
      ['v1', 'Service', 'reg-etcd'],
      ['policy/v1', 'PodDisruptionBudget', 'reg-etcd'],
      ['v1', 'ConfigMap', 'reg-etcd-members'],
      ['v1', 'Secret', 'reg-registry-tokens'],
      ['v1', 'Secret', 'reg-registry-auth'],
      ['apps/v1', 'Deployment', 'reg-registry'],
      ['v1', 'Service', 'reg-registry'],
    ] as const;
    for (const [apiVersion, kind, name] of owned) {
      const obj = await get(apiVersion, kind, name);
      expect(obj, `${kind} ${name}`).toBeDefined();
      expect(obj!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'RegistryCluster', name: NAME, uid });
      expect((obj!.metadata.managedFields as Any[]).map((f) => f.manager)).toContain('orrery-operator');
    }
    expect((await get('policy/v1', 'PodDisruptionBudget', 'reg-etcd'))!.spec).toMatchObject({ maxUnavailable: 1 });

    // Everything the operator wrote, it wrote as its ServiceAccount; applies as orrery-operator, not forced
    // (nobody else owns these fields: a conflict would be taken over only after a refused unforced try).
    const byOperator = auditEvents((e) => e.objectRef?.namespace === NS && e.user.username === operatorUser && ['patch', 'update', 'create', 'delete'].includes(e.verb));
    const stsApplies = byOperator.filter((e) => e.verb === 'patch' && e.objectRef?.resource === 'statefulsets' && !e.objectRef.subresource);
    expect(stsApplies.length).toBeGreaterThan(0);
    expect(new URL(stsApplies[0]!.requestURI, 'https://x').searchParams.get('fieldManager')).toBe('orrery-operator');
    expect(new URL(stsApplies[0]!.requestURI, 'https://x').searchParams.get('force')).toBe('false');
    // Status only through the status subresource: the operator never writes the RegistryCluster itself.
    const rcWrites = byOperator.filter((e) => e.objectRef?.resource === 'registryclusters');
    expect(rcWrites.length).toBeGreaterThan(0);
    expect(rcWrites.every((e) => e.objectRef?.subresource === 'status')).toBe(true);
    // Replicas only through the scale subresource, one member at a time.
    expect(byOperator.some((e) => e.objectRef?.resource === 'statefulsets' && e.objectRef.subresource === 'scale')).toBe(true);
    expect(replicasSeen.at(-1)).toBe(3);
    expect((await get('apps/v1', 'StatefulSet', 'reg'))!.spec.replicas).toBe(3);

    expect(await endpointsArg()).toHaveLength(3);
    // The endpoint lands in a status write after the registry Deployment is ready.
    const endpoint = await eventually('status.endpoint', async () => (await rcNow())?.status?.endpoint, 120_000, 500);
    expect(endpoint).toBe(`http://reg-registry.${NS}.svc:8080`);
    // The registry really runs over the members: its Service answers from the host (kube-proxy).
    const svc = (await get('v1', 'Service', 'reg-registry'))!;
    const health = await eventually('registry /healthz through its ClusterIP', async () => {
      const res = await fetch(`http://${svc.spec.clusterIP as string}:8080/healthz`);
      return res.ok ? res.status : undefined;
    }, 60_000);
    expect(health).toBe(200);
  });

  it('scales up by adding a learner through etcd, then raising the StatefulSet, one ordinal at a time', { timeout: 300_000 }, async () => {
    await setReplicas(5);
    await waitForVoters(['reg-1', 'reg-2', 'reg-3', 'reg-4', 'reg-5'], 240_000);
    const cm = await membersConfig();
    for (const k of [4, 5]) {
      const learner = parseYaml(cm[`reg-${k}.yaml`]!) as Record<string, string>;
      expect(learner['initial-cluster-state']).toBe('existing');
      // The member list MemberAdd answered: the voters so far and the learner itself.
      expect(learner['initial-cluster']!.split(',').map((x) => x.split('=')[0]).sort()).toEqual(Array.from({ length: k }, (_, i) => `reg-${i + 1}`));
    }
    expect(replicasSeen.slice(replicasSeen.indexOf(3))).toEqual([3, 4, 5]);
    await eventually('registry follows the five voters', async () => (await endpointsArg()).length === 5, 60_000);
     // kubectl describe registrycluster tells it: each learner added, then promoted (issue 19 Events).
    const story = await eventually('membership Events', async () => {
      const l = (await membershipEvents()).filter((e) => /reg-[45]/.test(e.message));
      return l.filter((e) => e.reason === 'LearnerPromoted').length >= 2 ? l : undefined;
    }, 30_000);
    for (const m of ['reg-4', 'reg-5']) {
      expect(story.filter((e) => e.reason === 'LearnerAdded' && e.message.startsWith(`added ${m} `))).toHaveLength(1);
      expect(story.find((e) => e.reason === 'LearnerPromoted' && e.message.startsWith(`promoted ${m} `))).toMatchObject({ type: 'Normal', involvedObject: { kind: 'RegistryCluster', name: NAME } });
    }
  });

  it('scales down by removing the highest voters through etcd, then lowering the StatefulSet and deleting their claims', { timeout: 300_000 }, async () => {
    await setReplicas(3);
    await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 240_000);
    await eventually('statefulset at 3', async () => (await get('apps/v1', 'StatefulSet', NAME))!.spec.replicas === 3, 30_000);
    expect(replicasSeen.slice(-3)).toEqual([5, 4, 3]);
    expect(Object.keys(await membersConfig()).sort()).toEqual(['members.json', 'reg-1.yaml', 'reg-2.yaml', 'reg-3.yaml']);
    await eventually('registry follows the three voters', async () => (await endpointsArg()).length === 3, 60_000);
    // whenScaled: Delete, and the operator deletes the removed members' claims itself.
    await eventually('claims of reg-4 and reg-5 gone', async () => {
      const names = (await client.list('v1', 'PersistentVolumeClaim', NS)).items.map((c) => c.metadata.name).sort();
      return names.join() === 'data-reg-1,data-reg-2,data-reg-3';
    }, 60_000, 500);
    await eventually('pods of reg-4 and reg-5 gone', async () => (await client.list('v1', 'Pod', NS, 'orrery.dev/component=etcd')).items.length === 3, 60_000, 500);
     const removed = await eventually('MemberRemoved Events', async () => {
      const l = (await membershipEvents()).filter((e) => e.reason === 'MemberRemoved');
      return l.length >= 2 ? l : undefined;
    }, 30_000);
    expect(removed.map((e) => /^removed (reg-\d+) /.exec(e.message)?.[1]).sort()).toEqual(['reg-4', 'reg-5']);
  });
});
