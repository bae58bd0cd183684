/**
 * `orrery deploy --code` with a folder or an archive (docs/packages.md): a folder is packed
 * (@orrery/builder's packFolder: deterministic, so the same folder uploads and builds once), a
 * .tgz/.tar.gz/.zip is sent as it is. Either way the archive is addressed by its SHA-256.
 */
import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { PACKAGE_LIMITS, PackageError, packFolder } from '@orrery/builder';

export interface CodePackage {
  archive: Buffer;
  sha256: string;
  /** Files packed (a folder), undefined for an archive given as it is. */
  files?: number;
}

const ARCHIVE_NAME = /\.(tgz|tar\.gz|zip)$/i;

/** Whether `--code PATH` names a package (a folder or an archive) rather than one module file. */
export async function isPackagePath(path: string): Promise<boolean> {
  if (ARCHIVE_NAME.test(path)) return true;
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** The archive to upload, or what is wrong with the path in words that say what to do. */
export async function codePackage(path: string): Promise<CodePackage | { error: string }> {
  try {
    if ((await stat(path)).isDirectory()) {
      const packed = await packFolder(path);
      return { archive: packed.archive, sha256: packed.sha256, files: packed.files };
    }
    const info = await stat(path);
    if (info.size > PACKAGE_LIMITS.maxArchiveBytes) return { error: `--code ${path} is ${info.size} bytes, over the ${PACKAGE_LIMITS.maxArchiveBytes}-byte package limit` };
    const archive = await readFile(path);
    return { archive, sha256: createHash('sha256').update(archive).digest('hex') };
  } catch (err) {
    if (err instanceof PackageError) return { error: `--code ${path}: ${err.message}` };
    return { error: `--code ${path}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file or folder' : (err as Error).message}` };
  }
}
