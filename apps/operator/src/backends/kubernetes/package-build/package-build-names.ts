/**
 * Names and paths the package build shares between the operator, the build Jobs, the worker pods
 * and the CLI (docs/kubernetes-backend.md "Packages"). Builds are content-addressed: the Job and
 * the built folder are named by the build key (the archive's sha256 and the builder, see
 * @orrery/builder buildKey), so every Function of a namespace with the same archive shares them.
 */

/** The namespace's package volume: built packages under `built/<key>`, written by build Jobs, read by workers. */
export const PACKAGE_VOLUME_CLAIM = 'orrery-packages';
/** Key of the archive in the package store's ConfigMap (binaryData). */
export const PACKAGE_ARCHIVE_KEY = 'package.tgz';
/** Folder of the package volume holding the built packages. */
export const BUILT_DIR = 'built';
/** Where build pods mount the package volume. */
export const BUILD_VOLUME_MOUNT = '/packages';
/** Where build pods find the archive (ConfigMap or fetched from package.url). */
export const ARCHIVE_DIR = '/var/orrery/archive';
/** Where worker pods find their built package (the volume's `built/<key>`, read-only). */
export const PACKAGE_DIR = '/var/orrery/package';
/** Where pool pods mount the whole package volume (read-only): a specialized pod loads its `built/<key>`. */
export const POOL_PACKAGES_DIR = '/var/orrery/packages';

export const COMPONENT_BUILD = 'package-build';
export const COMPONENT_PACKAGE_VOLUME = 'package-volume';
/** The first 20 hex digits of the build key (a label value holds at most 63 characters, the key has 64). */
export const BUILD_KEY_LABEL = 'orrery.dev/build-key';
/** The full build key and archive sha256 of a build Job. */
export const BUILD_KEY_ANNOTATION = 'orrery.dev/build-key';
export const BUILD_SHA256_ANNOTATION = 'orrery.dev/package-sha256';
export const BUILDER_ANNOTATION = 'orrery.dev/builder';
/**
 * The outcome of a finished build, copied onto its Job by the operator: the pod that reported it
 * may be garbage-collected, the Job stays as long as the built folder does.
 */
export const BUILD_RESULT_ANNOTATION = 'orrery.dev/build-result';

/** The package store's ConfigMap of an archive (the CLI writes it; spec.template.source.package without url). */
export const packageConfigMapName = (sha256: string): string => `orrery-package-${sha256.slice(0, 20)}`;
/** One Job per build key and namespace: a second Function with the same archive finds it and builds nothing. */
export const buildJobName = (key: string): string => `orrery-build-${key.slice(0, 20)}`;
/** The built package's folder inside the package volume. */
export const builtSubPath = (key: string): string => `${BUILT_DIR}/${key}`;
