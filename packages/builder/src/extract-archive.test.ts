import { mkdtemp, readFile, readlink, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SafeEntry } from './archive-entries.ts';
import { extractEntries } from './extract-archive.ts';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-extract-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});
const bytes = (s: string) => new TextEncoder().encode(s);
const file = (path: string, data = 'x', mode = 0o644): SafeEntry => ({ path, type: 'file', mode, data: bytes(data) });
const link = (path: string, linkTarget: string): SafeEntry => ({ path, type: 'symlink', mode: 0o777, data: new Uint8Array(0), linkTarget });

describe('extractEntries', () => {
  it('writes files with their modes and links that stay inside', async () => {
    await extractEntries([file('bin/run', '#!', 0o755), file('a/b.js', 'b'), link('a/alias.js', 'b.js')], dir);
    expect((await stat(join(dir, 'bin/run'))).mode & 0o777).toBe(0o755);
    expect(await readFile(join(dir, 'a/alias.js'), 'utf8')).toBe('b');
    expect(await readlink(join(dir, 'a/alias.js'))).toBe('b.js');
  });

  it('refuses a chain of links that is inside by its words but outside once resolved', async () => {
    // d1/d2/y -> ../../a resolves to <root>/a; x = y/../.. then is <root>/.. although "d1/d2/y/../.." reads as d1.
    await expect(extractEntries([file('a/keep'), link('d1/d2/y', '../../a'), link('d1/d2/x', 'y/../..')], dir)).rejects.toThrow(/x" resolves outside/);
  });

  it('refuses a dangling link', async () => {
    await expect(extractEntries([link('ghost', 'nowhere.js')], dir)).rejects.toThrow(/resolves outside the package or nowhere/);
  });

  it('writes no file through a link, because links come last', async () => {
    await expect(extractEntries([link('lib', 'real'), file('real/x'), file('lib/y')], dir)).rejects.toThrow(/EEXIST/);
    await expect(stat(join(dir, 'real', 'y'))).rejects.toThrow(/ENOENT/);
  });
});
