/**
 * The resource commands' view of a Kubernetes cluster: Orrery's CRDs through the API server,
 * every write a server-side apply with the field manager `orrery-cli` (so `kubectl get
 * function -o yaml --show-managed-fields` says who set what). The code of `orrery deploy` goes
 * into a ConfigMap; Events and worker logs come from the core API. The CLI's own small edge over
 * @kubernetes/client-node (apps do not import each other; the operator has its own).
 */
import { existsSync } from 'node:fs';
import { ApiException, CoreV1Api, KubeConfig, KubernetesObjectApi, PatchStrategy, type KubernetesObject } from '@kubernetes/client-node';
import { FUNCTION_LABEL, GROUP_VERSION, type Resource, type ResourceKind } from '@orrery/spec';
import { StoreError, type ListResult } from '@orrery/store';
import type { CliStore } from '../connection/api-store.ts';
import type { DescribedEvent } from '../describe/function-description.ts';
import type { WorkerLine } from '../describe/worker-errors.ts';
import { applyOutcome } from '../resources/apply-outcome.ts';
import { CLI_FIELD_MANAGER, MANAGED_BY_LABEL, codeConfigMap } from './code-config-map.ts';
import { packageConfigMap, packageConfigMapName } from './package-config-map.ts';
import { translateKubeError } from './kube-errors.ts';
import type { KubeTarget } from './kube-target.ts';

/** The kubeconfig the target names, with its context; a missing file or context is an error that says so. */
export function loadKubeConfig(target: KubeTarget): KubeConfig {
  const kc = new KubeConfig();
  if (target.inCluster) kc.loadFromCluster();
  else if (target.kubeconfig !== undefined) {
    if (!existsSync(target.kubeconfig)) throw new Error(`--kubeconfig ${target.kubeconfig}: no such file`);
    kc.loadFromFile(target.kubeconfig);
  } else kc.loadFromDefault();
  if (target.context !== undefined) {
    if (!kc.getContexts().some((c) => c.name === target.context)) {
      throw new Error(`--context ${target.context}: not in the kubeconfig (it has ${kc.getContexts().map((c) => c.name).join(', ') || 'no contexts'})`);
    }
    kc.setCurrentContext(target.context);
  }
  if (!kc.getCurrentCluster()) throw new Error('the kubeconfig names no current cluster: pass --context');
  return kc;
}

/** JSON as the API server sent it: client-node's models turn timestamps into Dates. managedFields are noise for a reader. */
function plain<T extends KubernetesObject>(obj: T): T {
  const out = JSON.parse(JSON.stringify(obj)) as T;
  if (out.metadata) delete out.metadata.managedFields;
  return out;
}

type Obj = KubernetesObject & { metadata: { name: string; namespace?: string; resourceVersion?: string } };

export function createKubeStore(target: KubeTarget): CliStore & { server: string } {
  const kc = loadKubeConfig(target);
  const server = kc.getCurrentCluster()!.server;
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const core = kc.makeApiClient(CoreV1Api);
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    try {
      return await fn();
    } catch (err) {
      if (err instanceof ApiException) throw translateKubeError(err.code, err.body, server);
      if (err instanceof StoreError) throw err;
      throw translateKubeError(undefined, undefined, server, err as Error);
    }
  };
  const ref = (kind: string, namespace: string, name: string, apiVersion: string = GROUP_VERSION) => ({ apiVersion, kind, metadata: { name, namespace } });
  const read = async (kind: string, namespace: string, name: string, apiVersion: string = GROUP_VERSION): Promise<Obj | undefined> => {
    try {
      return plain(await call(() => objects.read<Obj>(ref(kind, namespace, name, apiVersion))));
    } catch (err) {
      if (err instanceof StoreError && err.code === 'not_found' && !/CRDs installed/.test(err.message)) return undefined;
      throw err;
    }
  };
  const serverSideApply = async (obj: Obj, force: boolean): Promise<Obj> =>
    plain(await call(() => objects.patch<Obj>(structuredClone(obj), undefined, undefined, CLI_FIELD_MANAGER, force, PatchStrategy.ServerSideApply)));

  return {
    server,
    get: async (kind, namespace, name) => (await read(kind, namespace, name)) as Resource | undefined,
    async list(kind: ResourceKind, opts = {}): Promise<ListResult> {
      const selector = opts.labels ? Object.entries(opts.labels).map(([k, v]) => `${k}=${v}`).join(',') : undefined;
      const res = await call(() => objects.list(GROUP_VERSION, kind, opts.namespace, undefined, undefined, undefined, undefined, selector));
      // A list's items may come without apiVersion and kind.
      const items = res.items.map((i) => ({ apiVersion: GROUP_VERSION, kind, ...plain(i) })) as unknown as Resource[];
      return { items, resourceVersion: Number(res.metadata?.resourceVersion ?? 0) };
    },
    async apply(obj, opts) {
      const m = obj as Obj;
      const namespace = m.metadata.namespace ?? 'default';
      const before = await read(m.kind!, namespace, m.metadata.name, m.apiVersion);
      const after = await serverSideApply({ ...m, metadata: { ...m.metadata, namespace } }, opts?.force === true);
      return { object: after as unknown as Resource, outcome: applyOutcome(before as Resource | undefined, after as unknown as Resource) };
    },
    async delete(kind, namespace, name) {
      try {
        await call(() => objects.delete(ref(kind, namespace, name), undefined, undefined, undefined, undefined, 'Background'));
      } catch (err) {
        if (err instanceof StoreError && err.code === 'not_found') return false;
        throw err;
      }
      if (kind === 'Function') {
        // The code ConfigMaps deploy wrote for it (its revisions, which read them, go with it).
        const cms = await call(() => core.listNamespacedConfigMap({ namespace, labelSelector: `${FUNCTION_LABEL}=${name},${MANAGED_BY_LABEL}=${CLI_FIELD_MANAGER}` }));
        for (const cm of cms.items) await call(() => core.deleteNamespacedConfigMap({ namespace, name: cm.metadata!.name! })).catch(() => undefined);
      }
      return true;
    },
    async codeSource(namespace, functionName, code) {
      const { configMap, source } = codeConfigMap(namespace, functionName, code);
      await serverSideApply(configMap, true);
      return source;
    },
    async putPackage(namespace, sha256, archive) {
      const cm = packageConfigMap(namespace, sha256, archive);
      if ('error' in cm) throw new Error(cm.error);
      // Immutable and named by its bytes: one already there holds this archive.
      const existing = await call(() => core.readNamespacedConfigMap({ namespace, name: packageConfigMapName(sha256) })).catch((err: unknown) => {
        if (err instanceof StoreError && err.code === 'not_found') return undefined;
        throw err;
      });
      if (existing) return 'present';
      await serverSideApply(cm, true);
      return 'uploaded';
    },
    async events(namespace, objectNames): Promise<DescribedEvent[]> {
      const names = new Set(objectNames);
      const list = await call(() => core.listNamespacedEvent({ namespace }));
      // Through JSON: client-node's Event model holds Dates.
      const items = JSON.parse(JSON.stringify(list.items)) as typeof list.items;
      return items
        .filter((e) => names.has(e.involvedObject.name ?? '') && (e.involvedObject.kind === 'Function' || e.involvedObject.kind === 'Revision'))
        .map((e) => ({
          type: e.type ?? 'Normal',
          reason: e.reason ?? '',
          object: `${e.involvedObject.kind}/${e.involvedObject.name}`,
          message: e.message ?? '',
          count: e.count ?? e.series?.count ?? 1,
          lastSeen: String(e.lastTimestamp ?? e.eventTime ?? e.metadata.creationTimestamp ?? ''),
        }))
        .sort((a, b) => a.lastSeen.localeCompare(b.lastSeen))
        .slice(-20);
    },
    async workerLogLines(namespace, functionName): Promise<WorkerLine[]> {
      const pods = await call(() => core.listNamespacedPod({ namespace, labelSelector: `${FUNCTION_LABEL}=${functionName}` }));
      const lines: WorkerLine[] = [];
      for (const pod of pods.items) {
        const name = pod.metadata!.name!;
        for (const c of pod.spec?.containers ?? []) {
          // The previous container's log holds a crash; the current one what it does now.
          for (const previous of [true, false]) {
            const text = await core.readNamespacedPodLog({ namespace, name, container: c.name, previous, tailLines: 200 }).catch(() => '');
            for (const line of String(text).split('\n')) if (line) lines.push({ worker: name, line });
          }
        }
      }
      return lines;
    },
    close: async () => {},
  };
}
