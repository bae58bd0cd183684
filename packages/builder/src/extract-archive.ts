import { mkdir, realpath, symlink, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import { PackageError } from './limits.ts';
import type { SafeEntry } from './archive-entries.ts';

/**
 * Writes safe entries under `dir` (which must be empty and new). Symlinks come last, so no file
 * is ever written through one; their targets were checked to stay inside by readArchive.
 */
export async function extractEntries(entries: readonly SafeEntry[], dir: string): Promise<void> {
  for (const e of entries) {
    if (e.type === 'dir') await mkdir(join(dir, e.path), { recursive: true, mode: 0o755 });
  }
  for (const e of entries) {
    if (e.type !== 'file') continue;
    const target = join(dir, e.path);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await writeFile(target, e.data, { mode: e.mode });
  }
  for (const e of entries) {
    if (e.type !== 'symlink') continue;
    const target = join(dir, e.path);
    await mkdir(dirname(target), { recursive: true, mode: 0o755 });
    await symlink(e.linkTarget!, target);
  }
  // A lexically-inside target can still leave through another link (a/b -> ../../x); the kernel's
  // resolution is the one that counts, and a link that resolves nowhere is refused too.
  const root = await realpath(dir);
  for (const e of entries) {
    if (e.type !== 'symlink') continue;
    const resolved = await realpath(join(dir, e.path)).catch(() => undefined);
    const rel = resolved === undefined ? '..' : relative(root, resolved);
    if (rel === '..' || rel.startsWith(`..${sep}`) || rel.startsWith(sep)) {
      throw new PackageError('archive_invalid', `symlink "${e.path}" resolves outside the package or nowhere; links must point at files inside it`);
    }
  }
}
