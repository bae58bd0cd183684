import { join } from 'node:path';

/**
 * Where packages live under the data dir (docs/packages.md): uploaded archives by sha256, built
 * packages by build key, and the record of a failed build (so it is not retried until the
 * archive or the builder changes). Names are hex digests only, checked by the callers. With
 * worker isolation the built packages live under the workers' root instead (`builtRoot`): workers
 * run under other uids and cannot enter the 0700 data dir.
 */
export function packagePaths(dataDir: string, builtRoot?: string) {
  const root = join(dataDir, 'packages');
  const built = builtRoot ?? join(root, 'built');
  return {
    archives: join(root, 'archives'),
    archive: (sha256: string) => join(root, 'archives', `${sha256}.tgz`),
    built,
    builtDir: (key: string) => join(built, key),
    failedRecord: (key: string) => join(built, `${key}.failed.json`),
  };
}
