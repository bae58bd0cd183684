/**
 * Whether the CLI talks to a Kubernetes API server (the CRDs, as kubectl would) rather than an
 * Orrery admin API or store, and with which kubeconfig. Explicit beats implicit:
 *
 * 1. --kubeconfig or --context                    → Kubernetes
 * 2. --api-url / --store-url                      → the admin API / store
 * 3. $ORRERY_API_URL / $ORRERY_STORE_URL          → the admin API / store
 * 4. a local platform (.orrery/platform.json)     → the admin API of `orrery up`
 * 5. $KUBECONFIG                                  → Kubernetes, its current context
 * 6. inside a pod (service account token mounted) → Kubernetes, in-cluster
 * 7. otherwise                                    → the local default (http://127.0.0.1:7070)
 *
 * ~/.kube/config alone does not count: a kubeconfig left from other work must not turn
 * `orrery get` away from the platform in front of you (pass --kubeconfig ~/.kube/config).
 */
export interface KubeTarget {
  /** A kubeconfig file; absent: $KUBECONFIG (with its ':'-joined list) or in-cluster. */
  kubeconfig?: string;
  context?: string;
  inCluster: boolean;
}

export interface KubeTargetInput {
  flags: { kubeconfig?: string; context?: string; apiUrl?: string; storeUrl?: string };
  env: NodeJS.ProcessEnv;
  platformFile: boolean;
  /** The service account token of a pod is mounted (checked by the caller). */
  serviceAccount: boolean;
}

export const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export function kubeTarget({ flags, env, platformFile, serviceAccount }: KubeTargetInput): KubeTarget | undefined {
  if (flags.kubeconfig !== undefined || flags.context !== undefined) {
    return { ...(flags.kubeconfig !== undefined ? { kubeconfig: flags.kubeconfig } : {}), ...(flags.context !== undefined ? { context: flags.context } : {}), inCluster: false };
  }
  if (flags.apiUrl !== undefined || flags.storeUrl !== undefined || env.ORRERY_API_URL || env.ORRERY_STORE_URL || platformFile) return undefined;
  if (env.KUBECONFIG) return { inCluster: false };
  if (env.KUBERNETES_SERVICE_HOST && serviceAccount) return { inCluster: true };
  return undefined;
}
