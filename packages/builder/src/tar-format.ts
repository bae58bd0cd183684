import { PackageError } from './limits.ts';

/** One entry of a tar archive, as plain data. */
export interface TarEntry {
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink' | 'other';
  /** Link target (symlink / hardlink). */
  linkTarget?: string;
  mode: number;
  data: Uint8Array;
}

const BLOCK = 512;

function writeString(header: Uint8Array, offset: number, length: number, value: string): void {
  const bytes = new TextEncoder().encode(value);
  if (bytes.length > length) throw new PackageError('folder_invalid', `tar header field too long: ${value}`);
  header.set(bytes, offset);
}

function writeOctal(header: Uint8Array, offset: number, length: number, value: number): void {
  writeString(header, offset, length, value.toString(8).padStart(length - 1, '0') + '\0');
}

/** Splits a path into ustar's prefix (≤155 bytes) and name (≤100 bytes). */
function splitUstarPath(path: string): { prefix: string; name: string } {
  if (Buffer.byteLength(path) <= 100) return { prefix: '', name: path };
  for (let i = path.lastIndexOf('/'); i > 0; i = path.lastIndexOf('/', i - 1)) {
    const prefix = path.slice(0, i);
    const name = path.slice(i + 1);
    if (Buffer.byteLength(prefix) <= 155 && Buffer.byteLength(name) <= 100) return { prefix, name };
  }
  throw new PackageError('folder_invalid', `path too long for the package archive (name over 100 bytes or path over 255): ${path}`);
}

/**
 * A ustar header with everything that varies between machines fixed (mtime 0, uid/gid 0, no
 * owner names), so the same folder always gives the same bytes.
 */
function header(path: string, type: 'file' | 'dir' | 'symlink', mode: number, size: number, linkTarget = ''): Uint8Array {
  const h = new Uint8Array(BLOCK);
  const { prefix, name } = splitUstarPath(path);
  writeString(h, 0, 100, name);
  writeOctal(h, 100, 8, mode);
  writeOctal(h, 108, 8, 0);
  writeOctal(h, 116, 8, 0);
  writeOctal(h, 124, 12, size);
  writeOctal(h, 136, 12, 0);
  h.fill(0x20, 148, 156); // checksum is computed with its own field as spaces
  h[156] = type === 'dir' ? 0x35 : type === 'symlink' ? 0x32 : 0x30;
  writeString(h, 157, 100, linkTarget);
  writeString(h, 257, 6, 'ustar\0');
  writeString(h, 263, 2, '00');
  writeString(h, 345, 155, prefix);
  let sum = 0;
  for (const b of h) sum += b;
  writeString(h, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
  return h;
}

/** Serializes entries into an uncompressed tar, in the given order (paths are written as given: checking them is the reader's job). */
export function writeTar(entries: ReadonlyArray<{ path: string; type: 'file' | 'dir' | 'symlink'; mode: number; data?: Uint8Array; linkTarget?: string }>): Buffer {
  const parts: Uint8Array[] = [];
  for (const e of entries) {
    const size = e.type === 'file' ? (e.data?.length ?? 0) : 0;
    parts.push(header(e.type === 'dir' ? `${e.path}/` : e.path, e.type, e.mode, size, e.linkTarget));
    if (e.type === 'file' && e.data && size > 0) {
      parts.push(e.data);
      const pad = (BLOCK - (size % BLOCK)) % BLOCK;
      if (pad) parts.push(new Uint8Array(pad));
    }
  }
  parts.push(new Uint8Array(BLOCK * 2));
  return Buffer.concat(parts);
}

function readString(buf: Uint8Array, offset: number, length: number): string {
  const slice = buf.subarray(offset, offset + length);
  const end = slice.indexOf(0);
  return Buffer.from(end === -1 ? slice : slice.subarray(0, end)).toString('utf8');
}

function readOctal(buf: Uint8Array, offset: number, length: number, what: string): number {
  const s = readString(buf, offset, length).trim();
  if (s === '') return 0;
  if (!/^[0-7]+$/.test(s)) throw new PackageError('archive_invalid', `not a tar archive: bad ${what} field`);
  return parseInt(s, 8);
}

function parsePax(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const text = Buffer.from(data).toString('utf8');
  let i = 0;
  while (i < text.length) {
    const space = text.indexOf(' ', i);
    if (space === -1) break;
    const len = parseInt(text.slice(i, space), 10);
    if (!Number.isFinite(len) || len <= 0) break;
    const record = text.slice(space + 1, i + len - 1);
    const eq = record.indexOf('=');
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    i += len;
  }
  return out;
}

/**
 * Reads an uncompressed tar into entries (pax and GNU long names applied), refusing corrupt
 * headers and more than `maxEntries` entries or `maxBytes` of file data.
 */
export function readTar(tar: Uint8Array, caps: { maxEntries: number; maxBytes: number }): TarEntry[] {
  const entries: TarEntry[] = [];
  let offset = 0;
  let total = 0;
  let pending: { path?: string; linkpath?: string } = {};
  while (offset + BLOCK <= tar.length) {
    const h = tar.subarray(offset, offset + BLOCK);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : h[i]!;
    if (sum !== readOctal(h, 148, 8, 'checksum')) throw new PackageError('archive_invalid', 'not a tar archive: header checksum mismatch');
    const size = readOctal(h, 124, 12, 'size');
    const typeflag = String.fromCharCode(h[156]!);
    const dataStart = offset + BLOCK;
    if (dataStart + size > tar.length) throw new PackageError('archive_invalid', 'tar archive is truncated');
    const data = tar.subarray(dataStart, dataStart + size);
    offset = dataStart + Math.ceil(size / BLOCK) * BLOCK;
    if (typeflag === 'x') {
      const pax = parsePax(data);
      pending = { path: pax['path'] ?? pending.path, linkpath: pax['linkpath'] ?? pending.linkpath };
      continue;
    }
    if (typeflag === 'g') continue;
    if (typeflag === 'L' || typeflag === 'K') {
      const value = readString(data, 0, data.length);
      pending = typeflag === 'L' ? { ...pending, path: value } : { ...pending, linkpath: value };
      continue;
    }
    const prefix = readString(h, 345, 155);
    const name = readString(h, 0, 100);
    const path = pending.path ?? (prefix ? `${prefix}/${name}` : name);
    const linkTarget = pending.linkpath ?? readString(h, 157, 100);
    pending = {};
    const type: TarEntry['type'] =
      typeflag === '0' || typeflag === '\0' || typeflag === '7'
        ? 'file'
        : typeflag === '5'
          ? 'dir'
          : typeflag === '2'
            ? 'symlink'
            : typeflag === '1'
              ? 'hardlink'
              : 'other';
    if (entries.length >= caps.maxEntries) {
      throw new PackageError('package_too_large', `the archive has more than ${caps.maxEntries} entries; leave out what the function does not need`);
    }
    if (type === 'file') {
      total += size;
      if (total > caps.maxBytes) {
        throw new PackageError('package_too_large', `the archive's files add up to more than ${caps.maxBytes} bytes; leave out what the function does not need`);
      }
    }
    entries.push({ path, type, mode: readOctal(h, 100, 8, 'mode'), data: type === 'file' ? data : new Uint8Array(0), ...(type === 'symlink' || type === 'hardlink' ? { linkTarget } : {}) });
  }
  return entries;
}
