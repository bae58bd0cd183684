import type { KubeObject } from './kube-client.ts';
import { REVISION_LABEL } from './render/labels.ts';

type DeploymentCondition = { type?: string; status?: string; reason?: string; message?: string };

/**
 * The deploy executor's terminal failure: the Deployment's own verdict that its rollout stopped
 * making progress (Progressing=False, ProgressDeadlineExceeded: pods crash at load, the image does
 * not start, probes never pass). The same signal kstatus and Knative fail a Deployment/Revision on.
 * Ignored while the Deployment controller has not observed the latest spec (the condition is stale).
 */
export function deploymentFailure(dep: KubeObject | undefined): { reason: string; message: string } | undefined {
  if (!dep) return undefined;
  const status = (dep.status ?? {}) as { observedGeneration?: number; conditions?: DeploymentCondition[] };
  if ((status.observedGeneration ?? 0) < (dep.metadata.generation ?? 0)) return undefined;
  const progressing = status.conditions?.find((c) => c.type === 'Progressing');
  if (progressing?.status !== 'False' || progressing.reason !== 'ProgressDeadlineExceeded') return undefined;
  const revision = dep.metadata.labels?.[REVISION_LABEL];
  const logs = revision ? ` — see the workers' logs: kubectl logs -n ${dep.metadata.namespace} -l ${REVISION_LABEL}=${revision}` : '';
  return { reason: 'ProgressDeadlineExceeded', message: `no worker became ready within the progress deadline (${progressing.message ?? 'Deployment timed out progressing'})${logs}` };
}
