import { mkdirSync, mkdtempSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { extractTemplate, templateEntries } from './pglite-template-extract.ts';

/** One ustar header (+ data blocks) as PGlite's dump writes them. */
function entry(name: string, type: string, data = '', mode = 0o600): Buffer {
  const head = Buffer.alloc(512);
  head.write(name, 0, 'utf8');
  head.write(mode.toString(8).padStart(7, '0'), 100);
  head.write(Buffer.byteLength(data).toString(8).padStart(11, '0'), 124);
  head.write(type, 156);
  head.write('ustar', 257);
  const body = Buffer.alloc(Math.ceil(Buffer.byteLength(data) / 512) * 512);
  body.write(data);
  return Buffer.concat([head, body]);
}
const END = Buffer.alloc(1024);
const tarOf = (...parts: Buffer[]) => Buffer.concat([...parts, END]);

describe('unpacking the PGlite template', () => {
  it('lists folders and files with their modes, leading slashes dropped', () => {
    const tar = tarOf(entry('/base', '5', '', 0o750), entry('/base/1', '0', 'x'.repeat(700)), entry('/PG_VERSION', '0', '17\n', 0o644));
    expect([...templateEntries(tar)].map((e) => [e.path, e.kind, e.mode, e.data.length])).toEqual([
      ['base', 'dir', 0o750, 0],
      ['base/1', 'file', 0o600, 700],
      ['PG_VERSION', 'file', 0o644, 3],
    ]);
  });

  it('refuses names that leave the folder, links and devices, a cut archive and a missing end marker', () => {
    expect(() => [...templateEntries(tarOf(entry('/../etc/passwd', '0', 'x')))]).toThrow(/refused name/);
    expect(() => [...templateEntries(tarOf(entry('/', '5')))]).toThrow(/refused name/);
    expect(() => [...templateEntries(tarOf(entry('/link', '2')))]).toThrow(/refused entry type/);
    expect(() => [...templateEntries(tarOf(entry('/dev', '3')))]).toThrow(/refused entry type/);
    expect(() => [...templateEntries(entry('/a', '0', 'x'.repeat(600)).subarray(0, 700))]).toThrow(/cut short/);
    expect(() => [...templateEntries(entry('/a', '0', 'abc'))]).toThrow(/end-of-archive/);
  });

  it('fills a missing or empty folder and leaves no staging folder behind', () => {
    const root = mkdtempSync(join(tmpdir(), 'orrery-template-extract-'));
    const tar = tarOf(entry('/base', '5'), entry('/base/1', '0', 'page'), entry('/PG_VERSION', '0', '17\n'));
    for (const dataDir of [join(root, 'missing', 'data'), join(root, 'empty')]) {
      if (dataDir.endsWith('empty')) mkdirSync(dataDir);
      extractTemplate(tar, dataDir);
      expect(readFileSync(join(dataDir, 'base', '1'), 'utf8')).toBe('page');
      expect(statSync(join(dataDir, 'PG_VERSION')).mode & 0o777).toBe(0o600);
    }
    expect(readdirSync(root).sort()).toEqual(['empty', 'missing']);
  });

  it('a bad archive leaves the folder as it was and nothing beside it', () => {
    const root = mkdtempSync(join(tmpdir(), 'orrery-template-extract-'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    expect(() => extractTemplate(tarOf(entry('/ok', '0', 'x'), entry('/../bad', '0', 'y')), dataDir)).toThrow(/refused name/);
    expect(readdirSync(dataDir)).toEqual([]);
    expect(readdirSync(root)).toEqual(['data']);
  });
});
