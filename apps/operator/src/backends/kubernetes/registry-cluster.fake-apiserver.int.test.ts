/**
 * RegistryCluster on the Kubernetes backend against the fake-apiserver, 3 → 5 → 3.
 *
 * No pod can run here, so a small stand-in for the StatefulSet controller and kubelet
 * (`FakeKubelet` below) runs a real local `etcd` for every ordinal below the StatefulSet's
 * replicas, with exactly the config file the operator wrote into the members ConfigMap (only
 * `data-dir` is rewritten to a temp folder, as the PVC mount would be), and publishes a Running
 * Pod for it. Member addresses are mapped to loopback ports through the placement's `addressing`
 * option. So the etcd membership calls (MemberAdd as learner, promote, remove) go to real etcd,
 * and everything Kubernetes sees goes through the fake-apiserver.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, waitFor } from '@orrery/etcdcluster';
import type { RegistryCluster } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml, stringify as toYaml } from 'yaml';
import type { RegistryClusterReconciler } from '../../registry-cluster/registry-cluster-reconciler.ts';
import { KubeClient, kubeConfigFor } from './kube-client.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import type { MemberAddressing } from './render/registry-cluster.ts';
import { startKubernetesRegistryClusters } from './start-registry-clusters.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

const NS = 'infra';
const NAME = 'reg';
const ETCD_BIN = process.env.ETCD_BIN ?? '/usr/bin/etcd';
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The StatefulSet controller + kubelet, reduced to what the test needs. */
class FakeKubelet {
  readonly procs = new Map<string, ChildProcess>();
  readonly started: string[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly fake: FakeApiServer,
    private readonly client: KubeClient,
    private readonly dir: string,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.sync(), 200);
  }

  private async sync(): Promise<void> {
    const sts = this.fake.get('apps/v1', 'StatefulSet', NS, NAME) as Any | undefined;
    if (!sts) return;
    const replicas: number = sts.spec.replicas ?? 1;
    const start: number = sts.spec.ordinals?.start ?? 0;
    const data = (this.fake.get('v1', 'ConfigMap', NS, `${NAME}-etcd-members`) as Any | undefined)?.data ?? {};
    for (let k = start; k < start + replicas; k++) {
      const pod = `${NAME}-${k}`;
      const yaml = data[`${pod}.yaml`];
      if (this.procs.has(pod) || !yaml) continue; // no config yet: the real pod would crash-loop
      const config = parseYaml(yaml) as Record<string, unknown>;
      mkdirSync(join(this.dir, pod), { recursive: true });
      const file = join(this.dir, pod, 'config.yaml');
      writeFileSync(file, toYaml({ ...config, 'data-dir': join(this.dir, pod, 'data') }));
      const child = spawn(ETCD_BIN, ['--config-file', file], { stdio: 'ignore' });
      this.procs.set(pod, child);
      this.started.push(`${pod}:${String(config['initial-cluster-state'])}`);
      this.fake.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: pod, namespace: NS, labels: sts.spec.template.metadata.labels }, status: { phase: 'Running' } });
    }
    for (const [pod, child] of this.procs) {
      const k = Number(pod.slice(NAME.length + 1));
      if (k < start + replicas) continue;
      this.procs.delete(pod);
      await this.kill(child);
      rmSync(join(this.dir, pod), { recursive: true, force: true }); // whenScaled: Delete
      await this.client.delete('v1', 'Pod', NS, pod);
    }
  }

  private async kill(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await Promise.all([...this.procs.values()].map((c) => this.kill(c)));
  }
}

let fake: FakeApiServer;
let client: KubeClient;
let store: ResourceStore;
let kubelet: FakeKubelet;
let reconciler: RegistryClusterReconciler;
let dir: string;

async function setReplicas(replicas: number): Promise<void> {
  await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { namespace: NS, name: NAME }, spec: { replicas } });
}

async function waitForVoters(names: string[], timeoutMs = 60_000): Promise<RegistryCluster> {
  return waitFor(`voters ${names.join(',')}`, timeoutMs, async () => {
    const rc = (await store.get('RegistryCluster', NS, NAME)) as RegistryCluster;
    const ms = rc.status?.members ?? [];
    const voters = ms.filter((m) => m.role === 'voter' && m.health === 'healthy').map((m) => m.name).sort();
    return ms.length === names.length && voters.join() === names.join() && rc.status?.leader ? rc : undefined;
  }, undefined, 250);
}

const scaleRequests = () =>
  fake.requests.filter((r) => r.method === 'PATCH' && r.path === `/apis/apps/v1/namespaces/${NS}/statefulsets/${NAME}/scale`).map((r) => (JSON.parse(r.body) as Any).spec.replicas as number);

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-kube-rc-'));
  fake = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: fake.url }));
  store = createKubernetesResourceStore({ client, rewatchMs: 100 });
  const ports = await freePorts(10);
  const addressing: MemberAddressing = (_rc, ordinal) => {
    const client = `http://127.0.0.1:${ports[(ordinal - 1) * 2]}`;
    const peer = `http://127.0.0.1:${ports[(ordinal - 1) * 2 + 1]}`;
    return { clientURL: client, peerURL: peer, listenClientURLs: client, listenPeerURLs: peer };
  };
  kubelet = new FakeKubelet(fake, client, dir);
  kubelet.start();
  await setReplicas(3);
  reconciler = await startKubernetesRegistryClusters(client, store, { addressing, intervalMs: 500, registryImage: 'orrery/registry:test' });
}, 30_000);

afterAll(async () => {
  await reconciler?.stop();
  await kubelet?.stop();
  await store?.close?.();
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('RegistryCluster on Kubernetes (fake-apiserver, real etcd behind a fake kubelet)', () => {
  it('bootstraps 3 members from per-ordinal configs and applies its objects with server-side apply', async () => {
    const rc = await waitForVoters(['reg-1', 'reg-2', 'reg-3']);
    expect(rc.status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
    expect(kubelet.started.slice(0, 3).sort()).toEqual(['reg-1:new', 'reg-2:new', 'reg-3:new']);
    const uid = rc.metadata.uid;
    const owned = [
      ['apps/v1', 'StatefulSet', 'reg'],
      ['v1', 'Service', 'reg-etcd'],
      ['policy/v1', 'PodDisruptionBudget', 'reg-etcd'],
      ['v1', 'ConfigMap', 'reg-etcd-members'],
      ['v1', 'Secret', 'reg-registry-tokens'],
      ['apps/v1', 'Deployment', 'reg-registry'],
      ['v1', 'Service', 'reg-registry'],
    ] as const;
    for (const [apiVersion, kind, name] of owned) {
      const obj = fake.get(apiVersion, kind, NS, name);
      expect(obj, `${kind} ${name}`).toBeDefined();
      expect(obj!.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'RegistryCluster', name: NAME, uid });
      expect(JSON.stringify(obj!.metadata.managedFields)).toContain('orrery-operator');
    }
    const applies = fake.requests.filter((r) => r.method === 'PATCH' && r.contentType === 'application/apply-patch+yaml' && r.path.includes('/statefulsets/'));
    expect(applies[0]?.query).toMatchObject({ fieldManager: 'orrery-operator', force: 'true' });
    expect(fake.get('policy/v1', 'PodDisruptionBudget', NS, 'reg-etcd')!.spec).toMatchObject({ maxUnavailable: 1 });
    // Status only through the status subresource.
    const statusWrites = fake.requests.filter((r) => r.method === 'PATCH' && r.path.endsWith(`/registryclusters/${NAME}/status`));
    expect(statusWrites.length).toBeGreaterThan(0);
    expect(fake.requests.some((r) => r.method !== 'GET' && r.path.endsWith(`/registryclusters/${NAME}`) && r.body.includes('"members"'))).toBe(false);
    expect(scaleRequests().at(-1)).toBe(3);
    const dep = fake.get('apps/v1', 'Deployment', NS, 'reg-registry') as Any;
    const endpoints = (dep.spec.template.spec.containers[0].args as string[]).find((a) => a.startsWith('--etcd-endpoints='))!;
    expect(endpoints.split('=')[1]!.split(',')).toHaveLength(3);
    // The endpoint lands in a status write after the registry Deployment is applied: the status
    // that first showed three voters may predate it.
    const endpoint = await waitFor('status.endpoint', 30_000, async () => ((await store.get('RegistryCluster', NS, NAME)) as RegistryCluster).status?.endpoint, undefined, 250);
    expect(endpoint).toBe('http://reg-registry.infra.svc:8080');
  }, 90_000);

  it('scales up by adding a learner through etcd, then raising the StatefulSet', async () => {
    await setReplicas(5);
    await waitForVoters(['reg-1', 'reg-2', 'reg-3', 'reg-4', 'reg-5'], 90_000);
    expect(kubelet.started).toEqual(expect.arrayContaining(['reg-4:existing', 'reg-5:existing']));
    const cm = (fake.get('v1', 'ConfigMap', NS, 'reg-etcd-members') as Any).data;
    const learner = parseYaml(cm['reg-4.yaml']) as Record<string, string>;
    // The member list MemberAdd answered: the three voters and the learner itself.
    expect(learner['initial-cluster']!.split(',').map((x) => x.split('=')[0]).sort()).toEqual(['reg-1', 'reg-2', 'reg-3', 'reg-4']);
    expect(learner['initial-cluster-state']).toBe('existing');
    // One ordinal at a time: 4 before 5.
    const scales = scaleRequests();
    expect(scales.indexOf(4)).toBeGreaterThan(-1);
    expect(scales.indexOf(5)).toBeGreaterThan(scales.indexOf(4));
  }, 120_000);

  it('scales down by removing the highest voters through etcd, then lowering the StatefulSet', async () => {
    await setReplicas(3);
    await waitForVoters(['reg-1', 'reg-2', 'reg-3'], 90_000);
    await waitFor('statefulset at 3', 10_000, async () => ((fake.get('apps/v1', 'StatefulSet', NS, NAME) as Any).spec.replicas === 3 ? true : undefined));
    const scales = scaleRequests();
    expect(scales.slice(-2)).toEqual([4, 3]);
    const cm = (fake.get('v1', 'ConfigMap', NS, 'reg-etcd-members') as Any).data;
    expect(Object.keys(cm).sort()).toEqual(['members.json', 'reg-1.yaml', 'reg-2.yaml', 'reg-3.yaml']);
    const dep = fake.get('apps/v1', 'Deployment', NS, 'reg-registry') as Any;
    await waitFor('registry follows the voters', 10_000, async () => {
      const d = fake.get('apps/v1', 'Deployment', NS, 'reg-registry') as Any;
      return ((d.spec.template.spec.containers[0].args as string[]).find((a) => a.startsWith('--etcd-endpoints='))!.split(',').length === 3 ? true : undefined);
    });
    expect(dep).toBeDefined();
  }, 120_000);
});
