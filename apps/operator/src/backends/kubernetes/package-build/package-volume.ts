import { COMPONENT_LABEL, MANAGED_BY, type Manifest } from '../render/labels.ts';
import { COMPONENT_PACKAGE_VOLUME, PACKAGE_VOLUME_CLAIM } from './package-build-names.ts';

/** `--package-volume-*` flags (chart: packages.volume). */
export interface PackageVolumeSettings {
  /** Requested size, a Kubernetes quantity (`10Gi`). */
  size: string;
  /** Absent: the cluster's default StorageClass. */
  storageClass?: string;
  /**
   * ReadWriteOnce is enough on one node; workers on several nodes need ReadWriteMany storage
   * (NFS, CephFS, a cloud file store), since build pods write and every worker reads.
   */
  accessMode: 'ReadWriteOnce' | 'ReadWriteMany';
}

export const DEFAULT_PACKAGE_VOLUME: PackageVolumeSettings = { size: '10Gi', accessMode: 'ReadWriteOnce' };

/**
 * The namespace's package volume. No owner: built packages outlive any one Function (a later
 * Function with the same archive reuses them), and deleting the claim takes the build Jobs with
 * it (they are owned by it), so nothing claims a build whose folder is gone.
 */
export function renderPackageVolumeClaim(namespace: string, s: PackageVolumeSettings): Manifest {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: PACKAGE_VOLUME_CLAIM,
      namespace,
      labels: { ...MANAGED_BY, [COMPONENT_LABEL]: COMPONENT_PACKAGE_VOLUME },
    },
    spec: {
      accessModes: [s.accessMode],
      resources: { requests: { storage: s.size } },
      ...(s.storageClass ? { storageClassName: s.storageClass } : {}),
    },
  };
}
