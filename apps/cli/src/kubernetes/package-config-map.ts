/**
 * The package store on Kubernetes (docs/packages.md): `orrery deploy --code DIR` writes the
 * archive into the ConfigMap `orrery-package-<sha256[:20]>` (binaryData `package.tgz`) of the
 * Function's namespace, where the operator's build Job reads it. Immutable: its name promises its
 * bytes. A ConfigMap holds at most 1 MiB, so a larger archive is refused with the way out.
 */
import { CLI_FIELD_MANAGER, MANAGED_BY_LABEL } from './code-config-map.ts';

export const PACKAGE_ARCHIVE_KEY = 'package.tgz';
/** What the API server takes in one ConfigMap (1 MiB), less room for its metadata. */
export const MAX_CONFIGMAP_ARCHIVE_BYTES = 1024 * 1024 - 4096;

export const packageConfigMapName = (sha256: string): string => `orrery-package-${sha256.slice(0, 20)}`;

export interface PackageConfigMap {
  apiVersion: 'v1';
  kind: 'ConfigMap';
  metadata: { name: string; namespace: string; labels: Record<string, string>; annotations: Record<string, string> };
  immutable: true;
  binaryData: Record<string, string>;
}

/** The ConfigMap, or why the archive cannot go into one. */
export function packageConfigMap(namespace: string, sha256: string, archive: Buffer): PackageConfigMap | { error: string } {
  const encoded = archive.toString('base64');
  if (encoded.length > MAX_CONFIGMAP_ARCHIVE_BYTES) {
    return {
      error: `the package archive is ${archive.length} bytes (${encoded.length} base64), over what a ConfigMap holds (1 MiB): host the archive (any http(s) server) and set spec.template.source.package.url with sha256 ${sha256}, or leave out what the function does not need`,
    };
  }
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: packageConfigMapName(sha256), namespace, labels: { [MANAGED_BY_LABEL]: CLI_FIELD_MANAGER }, annotations: { 'orrery.dev/package-sha256': sha256 } },
    immutable: true,
    binaryData: { [PACKAGE_ARCHIVE_KEY]: encoded },
  };
}
