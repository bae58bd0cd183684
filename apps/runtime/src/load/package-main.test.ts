import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { packageModulePath } from './package-main.ts';

let root: string;
let pkg: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'orrery-pkg-main-'));
  pkg = join(root, 'pkg');
  await mkdir(join(pkg, 'lib'), { recursive: true });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

describe('packageModulePath', () => {
  it('takes the given main, then package.json main, then index.mjs, then index.js', async () => {
    await writeFile(join(pkg, 'lib', 'h.mjs'), '');
    await writeFile(join(pkg, 'index.js'), '');
    expect(await packageModulePath(pkg, 'lib/h.mjs')).toBe(join(pkg, 'lib', 'h.mjs'));
    expect(await packageModulePath(pkg)).toBe(join(pkg, 'index.js'));
    await writeFile(join(pkg, 'index.mjs'), '');
    expect(await packageModulePath(pkg)).toBe(join(pkg, 'index.mjs'));
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ main: './lib/h.mjs' }));
    expect(await packageModulePath(pkg)).toBe(join(pkg, 'lib', 'h.mjs'));
  });

  it('refuses a main outside the folder, through .. or a symlink', async () => {
    await writeFile(join(root, 'outside.mjs'), '');
    await symlink('../outside.mjs', join(pkg, 'leak.mjs'));
    await expect(packageModulePath(pkg, '../outside.mjs')).rejects.toMatchObject({ code: 'source_not_found' });
    await expect(packageModulePath(pkg, 'leak.mjs')).rejects.toThrow(/no module leak.mjs inside it/);
  });

  it('says what is missing', async () => {
    await expect(packageModulePath(join(root, 'nope'))).rejects.toThrow(/does not exist/);
    await expect(packageModulePath(pkg)).rejects.toThrow(/no module index.js/);
    await expect(packageModulePath(pkg, 'lib')).rejects.toThrow(/not a file/);
  });
});
