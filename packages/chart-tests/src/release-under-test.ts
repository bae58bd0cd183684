/**
 * A Helm release of charts/orrery on the test cluster, as the upgrade and backup/restore tests
 * drive it: install/upgrade/uninstall through the cache's helm, read and server-side apply objects
 * in its namespace, wait for conditions, reach the router's Service from the node (its ClusterIP,
 * routed by the real kube-proxy), and say what the pods were doing when something failed.
 */
import { ApiException, AppsV1Api, CoreV1Api, DiscoveryV1Api, KubernetesObjectApi, type KubeConfig, type KubernetesObject, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { adminKubeConfig, containerLog, eventually, helm } from '@orrery/kube-testenv';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { repoRoot } from './chart-files.ts';
import { teardownRelease } from './release-teardown.ts';

export const GV = 'orrery.dev/v1alpha1';

export type Obj = KubernetesObject & { spec?: Record<string, unknown>; status?: Record<string, unknown>; data?: Record<string, string>; [k: string]: unknown };
type Condition = { type: string; status: string; reason?: string; message?: string };

export const conditionsOf = (o: Obj | undefined): Condition[] => (o?.status as { conditions?: Condition[] } | undefined)?.conditions ?? [];
export const isTrue = (o: Obj | undefined, type: string): boolean => conditionsOf(o).some((c) => c.type === type && c.status === 'True');

/** The documents of examples/<file>, placed in `namespace`. */
export function examples(file: string, namespace: string): Obj[] {
  return parseAllDocuments(readFileSync(join(repoRoot, 'examples', file), 'utf8'))
    .map((d) => d.toJS() as Obj | null)
    .filter((o): o is Obj => !!o)
    .map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
}

export class ReleaseUnderTest {
  readonly kc: KubeConfig = adminKubeConfig();
  readonly objects = KubernetesObjectApi.makeApiClient(this.kc);
  readonly core = this.kc.makeApiClient(CoreV1Api);
  readonly apps = this.kc.makeApiClient(AppsV1Api);
  readonly discovery = this.kc.makeApiClient(DiscoveryV1Api);

  constructor(
    readonly namespace: string,
    readonly release = 'orrery',
  ) {}

  async read(apiVersion: string, kind: string, name: string, namespace = this.namespace): Promise<Obj | undefined> {
    try {
      return await this.objects.read<Obj>({ apiVersion, kind, metadata: { name, namespace } });
    } catch (err) {
      if (err instanceof ApiException && err.code === 404) return undefined;
      throw err;
    }
  }

  /** Server-side apply as the test's own field manager (what kubectl apply --server-side does). */
  apply(obj: Obj): Promise<Obj> {
    return this.objects.patch<Obj>(obj, undefined, undefined, 'e2e-test', true, PatchStrategy.ServerSideApply);
  }

  /** Waits until `kind/name` reports condition `type` True; the failure names the pods' states. */
  async untilTrue(kind: string, name: string, type: string, timeoutMs: number): Promise<Obj> {
    return eventually(`${kind} ${name} ${type}`, async () => {
      const o = await this.read(GV, kind, name);
      return isTrue(o, type) ? o : undefined;
    }, timeoutMs, 1000).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\n${await this.podStates()}`);
    });
  }

  /** Every pod's phase and container states, and the last operator log lines (for a failure message). */
  async podStates(): Promise<string> {
    const pods = await this.core.listNamespacedPod({ namespace: this.namespace });
    const lines = pods.items.map((p) => `${p.metadata?.name}: ${p.status?.phase} ${JSON.stringify(p.status?.containerStatuses?.map((c) => ({ ready: c.ready, restarts: c.restartCount, state: c.state })))}`);
    for (const p of pods.items.filter((x) => x.metadata?.labels?.['app.kubernetes.io/component'] === 'operator')) {
      lines.push(`--- ${p.metadata!.name}\n${containerLog(this.namespace, p.metadata!.name!, 'operator').trim().split('\n').slice(-20).join('\n')}`);
    }
    return lines.join('\n');
  }

  /** Waits until no namespace of that name exists (a kept cluster may still be removing an earlier run's). */
  async namespaceFree(timeoutMs = 300_000): Promise<void> {
    await eventually(`namespace ${this.namespace} free`, async () => !(await this.read('v1', 'Namespace', this.namespace, '')), timeoutMs, 1000);
  }

  /** `helm install|upgrade <release> <chart> -n <namespace> … --wait`; throws with helm's stderr and the pods' states. */
  async helm(verb: 'install' | 'upgrade', chart: string, extra: string[], timeoutMs = 600_000): Promise<void> {
    const args = [verb, this.release, chart, '-n', this.namespace, ...extra, '--wait', '--timeout', `${Math.floor(timeoutMs / 1000) - 30}s`];
    const out = await helm(args, { timeoutMs });
    if (out.code !== 0) throw new Error(`helm ${verb} failed (${out.code}):\n${out.stderr}\n${await this.podStates()}`);
  }

  /**
   * The release removed the way users are told (release-teardown.ts: Orrery objects first, helm
   * uninstall, leftover webhooks and finalizers, the namespace). What had to be forced is printed;
   * the namespace must be gone (the namespace controller removes the rest, PVCs too), since the
   * callers go on to reuse it or to check the volumes are deleted.
   */
  async uninstall(): Promise<void> {
    for (const line of await teardownRelease(this.kc, this.release, this.namespace)) console.error(`teardown: ${line}`);
    if (await this.read('v1', 'Namespace', this.namespace, '')) throw new Error(`namespace ${this.namespace} is still there after the release was torn down`);
  }

  /** `http://<router ClusterIP>:<port>`: the test runs on the node, without cluster DNS. */
  async routerBase(): Promise<string> {
    const svc = await this.core.readNamespacedService({ name: `${this.release}-router`, namespace: this.namespace });
    return `http://${svc.spec!.clusterIP}:${svc.spec!.ports![0]!.port}`;
  }

  /** A Secret's value, decoded. */
  async secretValue(name: string, key: string): Promise<string> {
    const s = await this.core.readNamespacedSecret({ name, namespace: this.namespace });
    const v = s.data?.[key];
    if (v === undefined) throw new Error(`Secret ${name} has no key ${key}`);
    return Buffer.from(v, 'base64').toString('utf8');
  }

  /** The IP of a Running pod (the test reaches pods directly where `kubectl exec` would be used). */
  async podIP(name: string): Promise<string> {
    return eventually(`pod ${name} Running with an IP`, async () => {
      const p = await this.core.readNamespacedPod({ name, namespace: this.namespace }).catch(() => undefined);
      return p?.status?.phase === 'Running' && p.status.podIP ? p.status.podIP : undefined;
    }, 120_000, 500);
  }

  /** What `kubectl rollout restart deploy/<name>` does: a pod template annotation, so the Deployment rolls. */
  async rolloutRestart(deployment: string): Promise<void> {
    await this.apps.patchNamespacedDeployment(
      { name: deployment, namespace: this.namespace, body: { spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } } } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    );
  }
}
