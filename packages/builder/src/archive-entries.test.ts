import { gzipSync } from 'node:zlib';
import { zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readArchive, safeEntryPath, symlinkStaysInside } from './archive-entries.ts';
import { PACKAGE_LIMITS } from './limits.ts';
import { writeTar } from './tar-format.ts';
import { fixChecksum } from './testing/tar-checksum.ts';

const bytes = (s: string) => new TextEncoder().encode(s);
const tgz = (entries: Parameters<typeof writeTar>[0]) => gzipSync(writeTar(entries));
const file = (path: string, data = 'x') => ({ path, type: 'file' as const, mode: 0o644, data: bytes(data) });

describe('safeEntryPath', () => {
  it.each([
    ['a/b.js', 'a/b.js'],
    ['./a/./b.js', 'a/b.js'],
    ['a//b/', 'a/b'],
    ['./', undefined],
  ])('normalizes %j', (raw, want) => expect(safeEntryPath(raw)).toBe(want));

  it.each([
    ['../etc/passwd', /".."/],
    ['a/../../x', /".."/],
    ['/etc/passwd', /absolute/],
    ['C:/x', /absolute/],
    ['a\\..\\x', /backslash/],
    ['a\0b', /NUL/],
  ])('refuses %j', (raw, message) => expect(() => safeEntryPath(raw)).toThrow(message));
});

describe('symlinkStaysInside', () => {
  it.each([
    ['lib/link', 'real.js', true],
    ['lib/link', '../index.js', true],
    ['link', '../outside', false],
    ['a/b/link', '../../../x', false],
    ['link', '/etc/passwd', false],
    ['link', '.', false],
    ['link', '', false],
  ])('%s -> %s: %s', (path, target, want) => expect(symlinkStaysInside(path, target)).toBe(want));
});

describe('readArchive', () => {
  it('reads a gzip\'d tar', () => {
    const entries = readArchive(tgz([{ path: 'src', type: 'dir', mode: 0o700 }, file('src/index.mjs', 'export default 1')]));
    expect(entries.map((e) => [e.path, e.type, e.mode.toString(8)])).toEqual([['src', 'dir', '755'], ['src/index.mjs', 'file', '644']]);
  });

  it('reads a zip', () => {
    const entries = readArchive(zipSync({ 'index.js': bytes('x'), 'lib/': new Uint8Array(0), 'lib/a.js': bytes('y') }));
    expect(entries.map((e) => [e.path, e.type])).toEqual([['index.js', 'file'], ['lib', 'dir'], ['lib/a.js', 'file']]);
  });

  it.each([
    ['a ../ entry', [file('../evil.sh')], /".."/],
    ['an absolute entry', [file('/tmp/evil.sh')], /absolute/],
    ['a symlink out', [{ path: 'link', type: 'symlink' as const, mode: 0o777, linkTarget: '../../etc/passwd' }], /points outside/],
    ['an absolute symlink', [{ path: 'link', type: 'symlink' as const, mode: 0o777, linkTarget: '/etc/passwd' }], /points outside/],
  ])('refuses %s in a tar', (_what, entries, message) => {
    expect(() => readArchive(tgz(entries))).toThrow(message);
  });

  it.each([
    ['1', /hard link/],
    ['3', /device/],
    ['6', /FIFO/],
  ])('refuses tar type %s', (flag, message) => {
    const tar = writeTar([file('x')]);
    tar[156] = flag.charCodeAt(0);
    fixChecksum(tar, 0);
    expect(() => readArchive(gzipSync(tar))).toThrow(message);
  });

  it('refuses a ../ entry in a zip', () => {
    expect(() => readArchive(zipSync({ '../evil.sh': bytes('x') }))).toThrow(/".."/);
  });

  it('caps entry counts (tar and zip)', () => {
    const limits = { ...PACKAGE_LIMITS, maxEntries: 10 };
    const names = Array.from({ length: 11 }, (_, i) => `f${i}`);
    expect(() => readArchive(tgz(names.map((n) => file(n))), limits)).toThrow(/more than 10 entries/);
    expect(() => readArchive(zipSync(Object.fromEntries(names.map((n) => [n, bytes('x')]))), limits)).toThrow(/more than 10 entries/);
  });

  it('stops a gzip bomb while inflating', () => {
    const limits = { ...PACKAGE_LIMITS, maxExtractedBytes: 1 << 20, maxEntries: 10 };
    const bomb = tgz([{ path: 'zeros', type: 'file', mode: 0o644, data: new Uint8Array(8 << 20) }]);
    expect(bomb.length).toBeLessThan(64 << 10);
    expect(() => readArchive(bomb, limits)).toThrow(/expands to more than/);
  });

  it('stops a zip that expands too far', () => {
    const limits = { ...PACKAGE_LIMITS, maxExtractedBytes: 1 << 20 };
    expect(() => readArchive(zipSync({ zeros: new Uint8Array(4 << 20) }), limits)).toThrow(/expands to more than/);
  });

  it('refuses an archive over the size limit and one that is neither format', () => {
    expect(() => readArchive(new Uint8Array(100), { ...PACKAGE_LIMITS, maxArchiveBytes: 10 })).toThrow(/over 10 bytes/);
    expect(() => readArchive(bytes('just text'))).toThrow(/neither a gzip'd tar/);
    expect(() => readArchive(gzipSync(bytes('not a tar, but long enough to be a header'.repeat(20))))).toThrow(/not a tar|checksum/);
  });
});
