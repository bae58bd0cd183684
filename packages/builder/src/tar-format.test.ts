import { describe, expect, it } from 'vitest';
import { readTar, writeTar } from './tar-format.ts';
import { fixChecksum } from './testing/tar-checksum.ts';

const caps = { maxEntries: 100, maxBytes: 1 << 20 };
const bytes = (s: string) => new TextEncoder().encode(s);

describe('writeTar / readTar', () => {
  it('round-trips files, folders and symlinks', () => {
    const tar = writeTar([
      { path: 'src', type: 'dir', mode: 0o755 },
      { path: 'src/a.js', type: 'file', mode: 0o644, data: bytes('hello') },
      { path: 'run.sh', type: 'file', mode: 0o755, data: bytes('#!/bin/sh\n') },
      { path: 'link', type: 'symlink', mode: 0o777, linkTarget: 'src/a.js' },
    ]);
    const entries = readTar(tar, caps);
    expect(entries.map((e) => [e.path, e.type, e.mode.toString(8)])).toEqual([
      ['src/', 'dir', '755'],
      ['src/a.js', 'file', '644'],
      ['run.sh', 'file', '755'],
      ['link', 'symlink', '777'],
    ]);
    expect(Buffer.from(entries[1]!.data).toString()).toBe('hello');
    expect(entries[3]!.linkTarget).toBe('src/a.js');
  });

  it('splits long paths into the ustar prefix and reads them back whole', () => {
    const path = `${'d'.repeat(90)}/${'e'.repeat(90)}/file.txt`;
    const [entry] = readTar(writeTar([{ path, type: 'file', mode: 0o644, data: bytes('x') }]), caps);
    expect(entry!.path).toBe(path);
  });

  it('refuses a path no ustar header can hold', () => {
    expect(() => writeTar([{ path: 'x'.repeat(101), type: 'file', mode: 0o644, data: bytes('') }])).toThrow(/path too long/);
  });

  it('writes the same bytes for the same entries (no times, owners)', () => {
    const entries = [{ path: 'a', type: 'file' as const, mode: 0o644, data: bytes('1') }];
    expect(writeTar(entries).equals(writeTar(entries))).toBe(true);
  });

  it('refuses a corrupt header checksum', () => {
    const tar = writeTar([{ path: 'a', type: 'file', mode: 0o644, data: bytes('1') }]);
    tar[0] = 'b'.charCodeAt(0);
    expect(() => readTar(tar, caps)).toThrow(/checksum/);
  });

  it('refuses a truncated archive', () => {
    const tar = writeTar([{ path: 'a', type: 'file', mode: 0o644, data: new Uint8Array(2000) }]);
    expect(() => readTar(tar.subarray(0, 1024), caps)).toThrow(/truncated/);
  });

  it('stops at the entry cap and the byte cap', () => {
    const many = writeTar(Array.from({ length: 5 }, (_, i) => ({ path: `f${i}`, type: 'file' as const, mode: 0o644, data: bytes('12345') })));
    expect(() => readTar(many, { maxEntries: 4, maxBytes: 1000 })).toThrow(/more than 4 entries/);
    expect(() => readTar(many, { maxEntries: 100, maxBytes: 20 })).toThrow(/more than 20 bytes/);
  });

  it('applies a pax header\'s path', () => {
    const record = (k: string, v: string) => {
      const body = ` ${k}=${v}\n`;
      let len = body.length + 2;
      if (String(len).length + body.length !== len) len = String(len + 1).length + body.length;
      return `${len}${body}`;
    };
    const pax = bytes(record('path', 'long/name.js'));
    const tar = writeTar([
      { path: 'PaxHeader', type: 'file', mode: 0o644, data: pax },
      { path: 'short', type: 'file', mode: 0o644, data: bytes('x') },
    ]);
    tar[156] = 'x'.charCodeAt(0);
    fixChecksum(tar, 0);
    const entries = readTar(tar, caps);
    expect(entries.map((e) => e.path)).toEqual(['long/name.js']);
  });
});

