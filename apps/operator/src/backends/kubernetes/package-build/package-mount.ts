import { PACKAGE_VOLUME_CLAIM, PACKAGE_DIR, POOL_PACKAGES_DIR, builtSubPath } from './package-build-names.ts';

/**
 * How a worker pod gets its built package: the namespace's package volume, read-only, only the
 * build's own folder (subPath `built/<key>`), at PACKAGE_DIR; the runtime loads it with
 * `--source-dir` (and `--source-main` when the package names its module).
 */
export function packageWorkerMount(key: string, main: string | undefined): { volume: object; mount: object; args: string[] } {
  return {
    volume: { name: 'package', persistentVolumeClaim: { claimName: PACKAGE_VOLUME_CLAIM, readOnly: true } },
    mount: { name: 'package', mountPath: PACKAGE_DIR, subPath: builtSubPath(key), readOnly: true },
    args: ['--source-dir', PACKAGE_DIR, ...(main ? ['--source-main', main] : [])],
  };
}

/** The package volume's name in a pool pod (a pool pod without it cannot load a package). */
export const POOL_PACKAGE_VOLUME = 'packages';

/**
 * How a pool pod gets the namespace's built packages: the whole package volume, read-only, at
 * POOL_PACKAGES_DIR. A pool pod is generic — which package it loads is known only at specialize —
 * so it cannot mount one build's folder (subPath) as a deploy worker does: a specialized pool
 * function can read every built package of its namespace (docs/security.md; the namespace is the
 * tenancy boundary). Read-only both ways (the claim and the mount): no function writes a build.
 */
export function poolPackageMount(): { volume: object; mount: object } {
  return {
    volume: { name: POOL_PACKAGE_VOLUME, persistentVolumeClaim: { claimName: PACKAGE_VOLUME_CLAIM, readOnly: true } },
    mount: { name: POOL_PACKAGE_VOLUME, mountPath: POOL_PACKAGES_DIR, readOnly: true },
  };
}

/** The built package folder as a pool pod sees it, for `POST /v1/specialize` `source.dir`. */
export const poolPackageDir = (key: string): string => `${POOL_PACKAGES_DIR}/${builtSubPath(key)}`;
