import { posix } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { unzipSync } from 'fflate';
import { PACKAGE_LIMITS, PackageError, type PackageLimits } from './limits.ts';
import { readTar, type TarEntry } from './tar-format.ts';

/** What an archive safely holds: relative paths only, every one inside the package root. */
export interface SafeEntry {
  path: string;
  type: 'file' | 'dir' | 'symlink';
  /** 0o755 for executables, else 0o644 (0o755 for folders). */
  mode: number;
  data: Uint8Array;
  linkTarget?: string;
}

/**
 * Normalizes an entry path, or refuses it: absolute paths, drive letters, backslashes, ".."
 * anywhere, and NUL bytes are how an archive writes outside the folder it is extracted into.
 * Returns undefined for the root itself ("./").
 */
export function safeEntryPath(raw: string): string | undefined {
  if (raw.includes('\0')) throw new PackageError('archive_invalid', `entry "${raw}" has a NUL byte`);
  if (raw.includes('\\')) throw new PackageError('archive_invalid', `entry "${raw}" has a backslash; archives use "/"`);
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw)) throw new PackageError('archive_invalid', `entry "${raw}" is an absolute path; archive entries must be relative`);
  const segments = raw.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new PackageError('archive_invalid', `entry "${raw}" has ".."; archive entries must stay inside the package`);
  if (segments.length === 0) return undefined;
  const path = segments.join('/');
  if (path.length > PACKAGE_LIMITS.maxPathLength) throw new PackageError('archive_invalid', `entry "${path.slice(0, 60)}…" is longer than ${PACKAGE_LIMITS.maxPathLength} characters`);
  return path;
}

/** Whether a symlink at `path` pointing at `target` stays inside the package root. */
export function symlinkStaysInside(path: string, target: string): boolean {
  if (target === '' || target.startsWith('/') || target.includes('\\') || target.includes('\0')) return false;
  const resolved = posix.normalize(posix.join(posix.dirname(path), target));
  return resolved !== '..' && !resolved.startsWith('../') && resolved !== '.';
}

/** Makes tar entries safe: refuses escapes, hard links, devices and FIFOs; keeps only the executable bit. */
export function safeTarEntries(entries: readonly TarEntry[]): SafeEntry[] {
  const out: SafeEntry[] = [];
  for (const e of entries) {
    const path = safeEntryPath(e.path);
    if (path === undefined) continue;
    if (e.type === 'other') throw new PackageError('archive_invalid', `entry "${path}" is a device, FIFO or other special file; packages hold only files, folders and symlinks`);
    if (e.type === 'hardlink') throw new PackageError('archive_invalid', `entry "${path}" is a hard link; packages hold only files, folders and symlinks`);
    if (e.type === 'symlink') {
      if (!symlinkStaysInside(path, e.linkTarget ?? '')) throw new PackageError('archive_invalid', `symlink "${path}" points outside the package (${e.linkTarget}); links must stay inside it`);
      out.push({ path, type: 'symlink', mode: 0o777, data: new Uint8Array(0), linkTarget: e.linkTarget! });
      continue;
    }
    out.push({ path, type: e.type, mode: e.type === 'dir' || e.mode & 0o111 ? 0o755 : 0o644, data: e.data });
  }
  return out;
}

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
}
function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && bytes[0] === 0x50 && bytes[1] === 0x4b && (bytes[2] === 0x03 || bytes[2] === 0x05);
}

/**
 * Reads a gzip'd tar or a zip into safe entries, with caps on the entry count and the bytes it
 * expands to (checked while inflating, so a zip bomb stops early).
 */
export function readArchive(archive: Uint8Array, limits: PackageLimits = PACKAGE_LIMITS): SafeEntry[] {
  if (archive.length > limits.maxArchiveBytes) throw new PackageError('package_too_large', `the archive is over ${limits.maxArchiveBytes} bytes`);
  if (isGzip(archive)) {
    let tar: Buffer;
    try {
      // The tar's own headers add at most ~1 KiB per entry beyond the file data.
      tar = gunzipSync(archive, { maxOutputLength: limits.maxExtractedBytes + (limits.maxEntries + 2) * 1024 });
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code === 'ERR_BUFFER_TOO_LARGE') throw new PackageError('package_too_large', `the archive expands to more than ${limits.maxExtractedBytes} bytes`);
      throw new PackageError('archive_invalid', `not a gzip'd tar: ${(err as Error).message}`);
    }
    return safeTarEntries(readTar(tar, { maxEntries: limits.maxEntries, maxBytes: limits.maxExtractedBytes }));
  }
  if (isZip(archive)) {
    let count = 0;
    let declared = 0;
    let files: Record<string, Uint8Array>;
    try {
      files = unzipSync(archive, {
        filter: (f) => {
          count += 1;
          declared += f.originalSize;
          if (count > limits.maxEntries) throw new PackageError('package_too_large', `the archive has more than ${limits.maxEntries} entries; leave out what the function does not need`);
          if (declared > limits.maxExtractedBytes) throw new PackageError('package_too_large', `the archive expands to more than ${limits.maxExtractedBytes} bytes`);
          return true;
        },
      });
    } catch (err) {
      if (err instanceof PackageError) throw err;
      throw new PackageError('archive_invalid', `not a zip archive: ${(err as Error).message}`);
    }
    const out: SafeEntry[] = [];
    let total = 0;
    for (const name of Object.keys(files).sort()) {
      const isDir = name.endsWith('/');
      const path = safeEntryPath(name);
      if (path === undefined) continue;
      const data = files[name]!;
      total += data.length;
      // The sizes a zip declares can lie; the inflated ones cannot.
      if (total > limits.maxExtractedBytes) throw new PackageError('package_too_large', `the archive expands to more than ${limits.maxExtractedBytes} bytes`);
      out.push(isDir ? { path, type: 'dir', mode: 0o755, data: new Uint8Array(0) } : { path, type: 'file', mode: 0o644, data });
    }
    return out;
  }
  throw new PackageError('archive_invalid', "the archive is neither a gzip'd tar (.tgz, .tar.gz) nor a zip");
}
