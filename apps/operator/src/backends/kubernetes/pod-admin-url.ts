import type { KubeObject } from './kube-client.ts';

/** The parts of a Pod that say where its admin listener is. */
export interface PodAdminView extends KubeObject {
  spec?: { containers?: Array<{ name: string; ports?: Array<{ name?: string; containerPort: number }> }> };
  status?: { phase?: string; podIP?: string };
}

/**
 * `http://POD_IP:PORT` of a running pod's admin listener: the container port named `admin`, else
 * `fallbackPort` (the chart's router.adminPort). Undefined while the pod is not Running, has no
 * IP yet, or is being deleted.
 */
export function podAdminUrl(pod: PodAdminView, fallbackPort: number): string | undefined {
  if (pod.metadata.deletionTimestamp || pod.status?.phase !== 'Running' || !pod.status.podIP) return undefined;
  const port = pod.spec?.containers?.flatMap((c) => c.ports ?? []).find((x) => x.name === 'admin')?.containerPort ?? fallbackPort;
  const host = pod.status.podIP.includes(':') ? `[${pod.status.podIP}]` : pod.status.podIP;
  return `http://${host}:${port}`;
}
