import type { V1Container, V1ObjectFieldSelector, V1Pod, V1ResourceFieldSelector } from '@kubernetes/client-node';
import { resourceValue } from './resource-quantity.ts';

/** Where the pod runs: known to the kubelet before any container starts. */
export interface PodPlacement {
  podIP: string;
  hostIP: string;
}

/** Node allocatable, used for limits a container does not set (as the kubelet does). */
export interface NodeAllocatable {
  cpu: string;
  memory: string;
  'ephemeral-storage'?: string;
}

/** `metadata.labels['a.b/c']` → `a.b/c`. */
const subscript = (path: string, field: string): string | undefined => {
  const m = new RegExp(`^${field.replace('.', '\\.')}\\['(.*)'\\]$`).exec(path);
  return m ? m[1] : undefined;
};

/** `k="v"` lines sorted by key, as the downward API writes whole label/annotation maps (Go's %q). */
export function formatMap(m: Record<string, string> | undefined): string {
  return Object.keys(m ?? {})
    .sort()
    .map((k) => `${k}=${JSON.stringify(m![k])}`)
    .join('\n');
}

/**
 * A fieldRef's value. `metadata.labels` and `metadata.annotations` without a subscript are only
 * valid in downwardAPI volumes (`wholeMaps`); env vars get the subscripted forms.
 */
export function fieldRefValue(ref: V1ObjectFieldSelector, pod: V1Pod, where: PodPlacement, wholeMaps = false): string {
  const path = ref.fieldPath;
  const md = pod.metadata ?? {};
  switch (path) {
    case 'metadata.name':
      return md.name ?? '';
    case 'metadata.namespace':
      return md.namespace ?? '';
    case 'metadata.uid':
      return md.uid ?? '';
    case 'spec.nodeName':
      return pod.spec?.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec?.serviceAccountName ?? '';
    case 'status.podIP':
      return where.podIP;
    case 'status.podIPs':
      return where.podIP;
    case 'status.hostIP':
    case 'status.hostIPs':
      return where.hostIP;
  }
  if (wholeMaps && path === 'metadata.labels') return formatMap(md.labels);
  if (wholeMaps && path === 'metadata.annotations') return formatMap(md.annotations);
  const label = subscript(path, 'metadata.labels');
  if (label !== undefined) return md.labels?.[label] ?? '';
  const annotation = subscript(path, 'metadata.annotations');
  if (annotation !== undefined) return md.annotations?.[annotation] ?? '';
  throw new Error(`unsupported fieldPath "${path}"`);
}

/**
 * A resourceFieldRef's value for `container` (named by the ref in volumes): requests and limits
 * from the spec; a limit the container leaves unset is the node's allocatable amount.
 */
export function resourceFieldRefValue(ref: V1ResourceFieldSelector, container: V1Container, allocatable: NodeAllocatable): string {
  const [kind, resource] = ref.resource.split('.', 2) as [string, string | undefined];
  if ((kind !== 'limits' && kind !== 'requests') || !resource) throw new Error(`unsupported resource "${ref.resource}"`);
  const limits = container.resources?.limits ?? {};
  const requests = container.resources?.requests ?? {};
  const fromNode = (allocatable as unknown as Record<string, string | undefined>)[resource] ?? '0';
  // The API server defaults requests to limits; an unset limit is the node's allocatable.
  const limit = limits[resource] ?? fromNode;
  const quantity = kind === 'limits' ? limit : (requests[resource] ?? limits[resource] ?? '0');
  const divisor = ref.divisor as string | number | undefined;
  return resourceValue(`${kind}.${resource === 'cpu' ? 'cpu' : resource}`, quantity, divisor);
}
