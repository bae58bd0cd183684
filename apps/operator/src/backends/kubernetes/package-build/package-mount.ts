import { PACKAGE_VOLUME_CLAIM, PACKAGE_DIR, builtSubPath } from './package-build-names.ts';

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
