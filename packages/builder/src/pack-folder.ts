import { createHash } from 'node:crypto';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { PACKAGE_LIMITS, PackageError, type PackageLimits } from './limits.ts';
import { writeTar } from './tar-format.ts';

/** Folders never packed: installed dependencies are the build's job, the rest is noise or secrets of a VCS. */
export const SKIPPED_NAMES: ReadonlySet<string> = new Set(['node_modules', '.git', '__pycache__', '.venv', '.python-packages']);

interface PackEntry {
  path: string;
  type: 'file' | 'dir';
  mode: number;
  data?: Uint8Array;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel === '' || (!rel.startsWith('..') && !rel.startsWith(sep) && rel !== '..');
}

/**
 * Packs a folder into a gzip'd tar whose bytes depend only on the files' paths, contents and
 * executable bits (sorted entries, mtime/uid/gid 0, modes 0644/0755), so the same folder always
 * has the same sha256 and builds once. Symlinks are followed only when they stay inside the folder.
 */
export async function packFolder(dir: string, limits: PackageLimits = PACKAGE_LIMITS): Promise<{ archive: Buffer; sha256: string; files: number }> {
  const root = await realpath(dir).catch(() => {
    throw new PackageError('folder_invalid', `${dir} does not exist`);
  });
  if (!(await stat(root)).isDirectory()) throw new PackageError('folder_invalid', `${dir} is not a folder`);
  const entries: PackEntry[] = [];
  let bytes = 0;
  let files = 0;
  const visiting = new Set<string>();

  async function walk(real: string, rel: string): Promise<void> {
    if (visiting.has(real)) throw new PackageError('folder_invalid', `${rel || '.'} links back to a folder it is in (a symlink loop)`);
    visiting.add(real);
    const names = (await readdir(real)).filter((n) => !SKIPPED_NAMES.has(n)).sort();
    for (const name of names) {
      const relPath = rel ? `${rel}/${name}` : name;
      let abs = join(real, name);
      let info = await lstat(abs);
      if (info.isSymbolicLink()) {
        const target = await realpath(abs).catch(() => undefined);
        if (target === undefined || !inside(root, target)) {
          throw new PackageError('folder_invalid', `${relPath} is a symlink that leaves the folder; copy the file in instead`);
        }
        abs = target;
        info = await stat(abs);
      }
      if (entries.length >= limits.maxEntries) throw new PackageError('package_too_large', `the folder has more than ${limits.maxEntries} files and folders; leave out what the function does not need`);
      if (info.isDirectory()) {
        entries.push({ path: relPath, type: 'dir', mode: 0o755 });
        await walk(abs, relPath);
      } else if (info.isFile()) {
        bytes += info.size;
        if (bytes > limits.maxExtractedBytes) throw new PackageError('package_too_large', `the folder's files add up to more than ${limits.maxExtractedBytes} bytes; leave out what the function does not need`);
        entries.push({ path: relPath, type: 'file', mode: info.mode & 0o111 ? 0o755 : 0o644, data: await readFile(abs) });
        files += 1;
      }
      // Sockets, FIFOs and devices are not code: skipped.
    }
    visiting.delete(real);
  }

  await walk(root, '');
  // level and strategy fixed: zlib's output is then a function of the input alone.
  const archive = gzipSync(writeTar(entries), { level: 9 });
  if (archive.length > limits.maxArchiveBytes) throw new PackageError('package_too_large', `the packed folder is ${archive.length} bytes, over the ${limits.maxArchiveBytes}-byte limit`);
  return { archive, sha256: createHash('sha256').update(archive).digest('hex'), files };
}
