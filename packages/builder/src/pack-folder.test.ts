import { mkdir, mkdtemp, rm, symlink, utimes, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readArchive } from './archive-entries.ts';
import { PACKAGE_LIMITS } from './limits.ts';
import { packFolder } from './pack-folder.ts';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'orrery-pack-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function folder(name: string, files: Record<string, string>): Promise<string> {
  const dir = join(root, name);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

describe('packFolder', () => {
  it('gives the same sha256 for the same files, whatever their times and creation order', async () => {
    const a = await folder('a', { 'package.json': '{}', 'src/index.mjs': 'export default 1', 'b.txt': 'b' });
    const b = await folder('b', { 'b.txt': 'b', 'src/index.mjs': 'export default 1', 'package.json': '{}' });
    await utimes(join(b, 'b.txt'), new Date(2001, 1, 1), new Date(2001, 1, 1));
    const [pa, pb] = [await packFolder(a), await packFolder(b)];
    expect(pa.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(pa.sha256).toBe(pb.sha256);
    expect(pa.archive.equals(pb.archive)).toBe(true);
    expect(pa.files).toBe(3);
  });

  it('changes the sha256 when a file or its executable bit changes', async () => {
    const dir = await folder('a', { 'index.mjs': 'export default 1' });
    const first = await packFolder(dir);
    await chmod(join(dir, 'index.mjs'), 0o755);
    const second = await packFolder(dir);
    await writeFile(join(dir, 'index.mjs'), 'export default 2');
    const third = await packFolder(dir);
    expect(new Set([first.sha256, second.sha256, third.sha256]).size).toBe(3);
  });

  it('packs sorted entries with only the executable bit kept, and skips installed and VCS folders', async () => {
    const dir = await folder('a', {
      'z.js': '',
      'a/b.js': '',
      'node_modules/x/index.js': '',
      '.git/config': '',
      '__pycache__/m.pyc': '',
      '.venv/bin/python': '',
      'lib/node_modules/y.js': '',
    });
    const entries = readArchive((await packFolder(dir)).archive);
    expect(entries.map((e) => e.path)).toEqual(['a', 'a/b.js', 'lib', 'z.js']);
  });

  it('follows a symlink that stays inside and refuses one that leaves', async () => {
    const dir = await folder('a', { 'real.js': 'r' });
    await symlink('real.js', join(dir, 'alias.js'));
    const entries = readArchive((await packFolder(dir)).archive);
    expect(entries.find((e) => e.path === 'alias.js')?.type).toBe('file');
    await writeFile(join(root, 'secret'), 's');
    await symlink('../secret', join(dir, 'leak'));
    await expect(packFolder(dir)).rejects.toThrow(/leak is a symlink that leaves the folder/);
  });

  it('refuses a symlink loop', async () => {
    const dir = await folder('a', { 'sub/x.js': '' });
    await symlink('..', join(dir, 'sub', 'up'));
    await expect(packFolder(dir)).rejects.toThrow(/symlink loop/);
  });

  it('says what is wrong with a missing folder or too many or too large files', async () => {
    await expect(packFolder(join(root, 'nope'))).rejects.toThrow(/does not exist/);
    const dir = await folder('a', { a: '12345', b: '12345', c: '12345' });
    await expect(packFolder(dir, { ...PACKAGE_LIMITS, maxEntries: 2 })).rejects.toThrow(/more than 2 files/);
    await expect(packFolder(dir, { ...PACKAGE_LIMITS, maxExtractedBytes: 12 })).rejects.toThrow(/more than 12 bytes/);
    await expect(packFolder(dir, { ...PACKAGE_LIMITS, maxArchiveBytes: 10 })).rejects.toThrow(/over the 10-byte limit/);
  });
});
