import { readFileSync } from 'node:fs';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';

/**
 * A KubeConfig that acts as a ServiceAccount: a token from the TokenRequest API (as a kubelet
 * mounts it into a pod), the cluster CA, no client certificate. RBAC then applies exactly as
 * it does to a pod running as that ServiceAccount.
 */
export async function serviceAccountKubeConfig(admin: KubeConfig, namespace: string, serviceAccount: string, expirationSeconds = 3600): Promise<KubeConfig> {
  const core = admin.makeApiClient(CoreV1Api);
  const res = await core.createNamespacedServiceAccountToken({
    name: serviceAccount,
    namespace,
    body: { spec: { audiences: [], expirationSeconds } },
  });
  const cluster = admin.getCurrentCluster();
  if (!cluster) throw new Error('the admin kubeconfig has no current cluster');
  const kc = new KubeConfig();
  kc.loadFromOptions({
    clusters: [{ name: 'c', server: cluster.server, caData: cluster.caData ?? (cluster.caFile ? readFileSync(cluster.caFile).toString('base64') : undefined) }],
    users: [{ name: `system:serviceaccount:${namespace}:${serviceAccount}`, token: res.status!.token }],
    contexts: [{ name: 'c', cluster: 'c', user: `system:serviceaccount:${namespace}:${serviceAccount}` }],
    currentContext: 'c',
  });
  return kc;
}
