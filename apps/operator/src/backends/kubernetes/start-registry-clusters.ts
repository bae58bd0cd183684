/**
 * Entry point of RegistryClusters on Kubernetes: the shared reconciler over the Kubernetes
 * resource store, with members placed by `KubeRegistryClusterBackend`. Run it on the elected leader only.
 */
import type { ResourceStore } from '@orrery/store';
import { RegistryClusterReconciler } from '../../registry-cluster/registry-cluster-reconciler.ts';
import { KubeRegistryClusterBackend, type KubeRegistryClusterBackendOptions } from './kube-registry-cluster-backend.ts';
import type { KubeClient } from './kube-client.ts';
import type { OperatorMetrics } from '../../metrics/operator-metrics.ts';

export interface KubernetesRegistryClustersOptions extends Omit<KubeRegistryClusterBackendOptions, 'client'> {
  /** How often every cluster is observed and its status refreshed (default 2 s). */
  intervalMs?: number;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
  /** Reconcile metrics of kind RegistryCluster. */
  metrics?: OperatorMetrics;
}

export async function startKubernetesRegistryClusters(
  client: KubeClient,
  store: ResourceStore,
  opts: KubernetesRegistryClustersOptions = {},
): Promise<RegistryClusterReconciler> {
  const { intervalMs, log, metrics, ...backend } = opts;
  // Membership Events through the client's recorder (core v1 Events on the RegistryCluster).
  const reconciler = new RegistryClusterReconciler({ store, backend: new KubeRegistryClusterBackend({ client, ...backend }), intervalMs, log, events: client.events, metrics });
  await reconciler.start();
  return reconciler;
}
