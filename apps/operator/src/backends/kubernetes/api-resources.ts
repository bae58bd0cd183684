import { API_GROUP, API_VERSION, GROUP_VERSION } from '@orrery/spec';

/** One resource type the operator reads or writes, with what REST paths and discovery need. */
export interface ApiResource {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  subresources: Array<'status' | 'scale'>;
}

/**
 * Everything the operator touches on Kubernetes — and so everything the Helm chart's RBAC must
 * allow.
 */
export const API_RESOURCES: readonly ApiResource[] = [
  { apiVersion: GROUP_VERSION, kind: 'Function', plural: 'functions', namespaced: true, subresources: ['status'] },
  { apiVersion: GROUP_VERSION, kind: 'Revision', plural: 'revisions', namespaced: true, subresources: ['status'] },
  { apiVersion: GROUP_VERSION, kind: 'Environment', plural: 'environments', namespaced: true, subresources: ['status'] },
  { apiVersion: GROUP_VERSION, kind: 'RegistryCluster', plural: 'registryclusters', namespaced: true, subresources: ['status'] },
  { apiVersion: GROUP_VERSION, kind: 'StateSync', plural: 'statesyncs', namespaced: true, subresources: ['status'] },
  { apiVersion: 'apps/v1', kind: 'Deployment', plural: 'deployments', namespaced: true, subresources: ['status', 'scale'] },
  { apiVersion: 'v1', kind: 'Service', plural: 'services', namespaced: true, subresources: ['status'] },
  { apiVersion: 'v1', kind: 'ConfigMap', plural: 'configmaps', namespaced: true, subresources: [] },
  { apiVersion: 'v1', kind: 'Secret', plural: 'secrets', namespaced: true, subresources: [] },
  { apiVersion: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', namespaced: true, subresources: [] },
  { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', plural: 'leases', namespaced: true, subresources: [] },
  // RegistryCluster members (StatefulSet + PVCs + PDB) and StateSync's replica reads (Pods).
  { apiVersion: 'apps/v1', kind: 'StatefulSet', plural: 'statefulsets', namespaced: true, subresources: ['status', 'scale'] },
  { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', plural: 'poddisruptionbudgets', namespaced: true, subresources: ['status'] },
  // No status subresource in the fake: its tests write a Pod's phase directly, as a kubelet would.
  { apiVersion: 'v1', kind: 'Pod', plural: 'pods', namespaced: true, subresources: [] },
  { apiVersion: 'v1', kind: 'PersistentVolumeClaim', plural: 'persistentvolumeclaims', namespaced: true, subresources: ['status'] },
  // Package builds (package-build/): one Job per build key, its pods' logs read when the termination message has none.
  { apiVersion: 'batch/v1', kind: 'Job', plural: 'jobs', namespaced: true, subresources: ['status'] },
];

export { API_GROUP, API_VERSION };

export function resourceFor(apiVersion: string, kind: string): ApiResource {
  const r = API_RESOURCES.find((x) => x.apiVersion === apiVersion && x.kind === kind);
  if (!r) throw new Error(`unknown resource ${apiVersion} ${kind}`);
  return r;
}

/** `/api/v1` for the core group, `/apis/<group>/<version>` otherwise. */
export function groupVersionPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

/** Collection path (all namespaces when `namespace` is undefined). */
export function collectionPath(r: ApiResource, namespace?: string): string {
  const base = groupVersionPath(r.apiVersion);
  return r.namespaced && namespace !== undefined
    ? `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`
    : `${base}/${r.plural}`;
}

export function objectPath(r: ApiResource, namespace: string, name: string, subresource?: string): string {
  return `${collectionPath(r, namespace)}/${encodeURIComponent(name)}${subresource ? `/${subresource}` : ''}`;
}
