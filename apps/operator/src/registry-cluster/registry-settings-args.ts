/**
 * The orrery-registry settings a RegistryCluster decides, as flags. The registry follows the
 * seed's configuration rule — every setting comes from a flag or its TOML file, none has a
 * default — so every launcher must give all of them; the addresses, etcd endpoints and tokens
 * are added by each launcher (they differ between the local and the Kubernetes backend).
 */
export interface RegistrySettings {
  /** `namespace/name` of the RegistryCluster: the Prometheus SD `cluster_id` label. */
  clusterId: string;
  cleanupInterval: string;
  cleanupDeleteLimit: number;
}

/** The seed's example region: a RegistryCluster is one region (no cross-region replication). */
export const REGISTRY_REGION = 'default';
/** The timeouts the registry had as defaults before the seed's rule made them required. */
export const REGISTRY_REQUEST_TIMEOUT = '5s';
export const REGISTRY_SHUTDOWN_TIMEOUT = '10s';

export function registrySettingsArgs(s: RegistrySettings): string[] {
  return [
    `--region=${REGISTRY_REGION}`,
    `--cluster-id=${s.clusterId}`,
    `--request-timeout=${REGISTRY_REQUEST_TIMEOUT}`,
    `--shutdown-timeout=${REGISTRY_SHUTDOWN_TIMEOUT}`,
    `--registry-cleanup-interval=${s.cleanupInterval}`,
    `--registry-cleanup-delete-limit=${s.cleanupDeleteLimit}`,
  ];
}
