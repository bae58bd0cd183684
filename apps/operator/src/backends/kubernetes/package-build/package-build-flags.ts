/**
 * The operator flags of package builds on Kubernetes (chart: packages.*). Pure: a bad value is a
 * UsageError naming the flag.
 */
import { parseDurationMs } from '@orrery/spec';
import { UsageError } from '../../../wiring/command-line.ts';
import { DEFAULT_BUILDER_IMAGE, type PackageBuildSettings } from './kube-package-builds.ts';
import { DEFAULT_PACKAGE_VOLUME, type PackageVolumeSettings } from './package-volume.ts';

export const PACKAGE_BUILD_USAGE = `  [--builder-image ${DEFAULT_BUILDER_IMAGE} (runs the build Jobs of source.package)] [--build-timeout 600s]
  [--package-volume-size ${DEFAULT_PACKAGE_VOLUME.size}] [--package-storage-class NAME (default: the cluster's)]
  [--package-volume-access-mode ReadWriteOnce|ReadWriteMany (ReadWriteMany when workers run on several nodes)]`;

export const PACKAGE_BUILD_FLAGS = {
  'builder-image': { type: 'string', default: DEFAULT_BUILDER_IMAGE },
  'build-timeout': { type: 'string', default: '600s' },
  'package-volume-size': { type: 'string', default: DEFAULT_PACKAGE_VOLUME.size },
  'package-storage-class': { type: 'string' },
  'package-volume-access-mode': { type: 'string', default: DEFAULT_PACKAGE_VOLUME.accessMode },
} as const;

type Values = { [K in keyof typeof PACKAGE_BUILD_FLAGS]?: string };

/** A Kubernetes quantity as a PVC's storage request takes it (`10Gi`, `500M`, `1e9`). */
const QUANTITY = /^\d+(\.\d+)?([KMGTPE]i?|[eE]\d+)?$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

export function readPackageBuildFlags(v: Values): PackageBuildSettings {
  const image = v['builder-image'] ?? DEFAULT_BUILDER_IMAGE;
  if (!image.trim() || /\s/.test(image)) throw new UsageError('--builder-image must be an image reference like orrery/builder:0.1.0');
  const timeoutMs = parseDurationMs(v['build-timeout'] ?? '600s');
  if (!(Number.isFinite(timeoutMs) && timeoutMs >= 1000 && timeoutMs % 1000 === 0)) throw new UsageError('--build-timeout must be a whole number of seconds of at least 1s, like "600s" or "10m"');
  const size = v['package-volume-size'] ?? DEFAULT_PACKAGE_VOLUME.size;
  if (!QUANTITY.test(size)) throw new UsageError(`--package-volume-size "${size}" is not a Kubernetes quantity like 10Gi`);
  const storageClass = v['package-storage-class'];
  if (storageClass !== undefined && (!DNS_SUBDOMAIN.test(storageClass) || storageClass.length > 253)) throw new UsageError(`--package-storage-class "${storageClass}" is not a StorageClass name`);
  const accessMode = v['package-volume-access-mode'] ?? DEFAULT_PACKAGE_VOLUME.accessMode;
  if (accessMode !== 'ReadWriteOnce' && accessMode !== 'ReadWriteMany') throw new UsageError('--package-volume-access-mode must be ReadWriteOnce or ReadWriteMany');
  const volume: PackageVolumeSettings = { size, accessMode, ...(storageClass ? { storageClass } : {}) };
  return { builderImage: image, timeoutSeconds: timeoutMs / 1000, volume };
}
