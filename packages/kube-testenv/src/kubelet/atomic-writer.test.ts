import { lstatSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type Payload, validatePayloadPath, writeAtomically } from './atomic-writer.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'atomic-writer-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const payload = (files: Record<string, string>, mode = 0o644): Payload => new Map(Object.entries(files).map(([k, v]) => [k, { data: Buffer.from(v), mode }]));

describe('writeAtomically', () => {
  it('lays files out as the kubelet does: a timestamped folder, ..data, and symlinks through it', () => {
    expect(writeAtomically(dir, payload({ token: 't1', 'nested/ca.crt': 'ca' }, 0o640))).toBe(true);
    const ts = readlinkSync(join(dir, '..data'));
    expect(ts).toMatch(/^\.\.\d{4}_\d\d_\d\d_\d\d_\d\d_\d\d\./);
    expect(readlinkSync(join(dir, 'token'))).toBe('..data/token');
    expect(readlinkSync(join(dir, 'nested'))).toBe('..data/nested');
    expect(readFileSync(join(dir, 'nested', 'ca.crt'), 'utf8')).toBe('ca');
    expect(statSync(join(dir, 'token')).mode & 0o777).toBe(0o640);
  });

  it('swaps in new content, removes files no longer there and the old folder', () => {
    writeAtomically(dir, payload({ a: '1', b: '2' }));
    const first = readlinkSync(join(dir, '..data'));
    expect(writeAtomically(dir, payload({ a: '3' }))).toBe(true);
    expect(readFileSync(join(dir, 'a'), 'utf8')).toBe('3');
    expect(() => lstatSync(join(dir, 'b'))).toThrow();
    expect(readdirSync(dir)).not.toContain(first);
    expect(readdirSync(dir).sort()).toEqual(['..data', readlinkSync(join(dir, '..data')), 'a'].sort());
  });

  it('does nothing when content and modes are unchanged', () => {
    writeAtomically(dir, payload({ a: '1' }));
    const ts = readlinkSync(join(dir, '..data'));
    expect(writeAtomically(dir, payload({ a: '1' }))).toBe(false);
    expect(readlinkSync(join(dir, '..data'))).toBe(ts);
    expect(writeAtomically(dir, payload({ a: '1' }, 0o600))).toBe(true);
  });

  it('gives files and folders the fsGroup when asked', () => {
    const p: Payload = new Map([['x/y', { data: Buffer.from('v'), mode: 0o440, gid: 1234 }]]);
    writeAtomically(dir, p, { dirGid: 1234 });
    expect(statSync(join(dir, 'x', 'y')).gid).toBe(1234);
    expect(statSync(join(dir, 'x')).gid).toBe(1234);
    expect(statSync(join(dir, 'x')).mode & 0o7777).toBe(0o2755);
    expect(writeAtomically(dir, p, { dirGid: 1234 })).toBe(false);
  });

  it('writes an empty payload (an optional Secret that is missing)', () => {
    expect(writeAtomically(dir, new Map())).toBe(true);
    expect(readdirSync(dir).filter((e) => !e.startsWith('..'))).toEqual([]);
  });
});

describe('validatePayloadPath', () => {
  it.each(['', '/abs', '../up', 'a/../../b', '..hidden'])('refuses %j', (p) => {
    expect(() => validatePayloadPath(p)).toThrow();
  });
  it('accepts nested relative paths', () => {
    expect(() => validatePayloadPath('a/b.c/d')).not.toThrow();
  });
});
