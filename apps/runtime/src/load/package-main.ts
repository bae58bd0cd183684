import { readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { LoadError } from './load-error.ts';

/**
 * The module file of a built package folder (docs/packages.md): `main` if given, else
 * package.json's "main", else index.mjs, else index.js — and never a file outside the folder
 * (a main of "../x" or a symlink out is refused).
 */
export async function packageModulePath(dir: string, main?: string): Promise<string> {
  const root = await realpath(isAbsolute(dir) ? dir : resolve(dir)).catch(() => {
    throw new LoadError('source_not_found', `package folder ${dir} does not exist`);
  });
  let chosen = main;
  if (chosen === undefined) {
    const pkg = await readFile(join(root, 'package.json'), 'utf8').then((t) => JSON.parse(t) as { main?: unknown }, () => undefined);
    if (typeof pkg?.main === 'string') chosen = pkg.main;
    else chosen = (await stat(join(root, 'index.mjs')).catch(() => undefined)) ? 'index.mjs' : 'index.js';
  }
  const path = await realpath(join(root, chosen)).catch(() => undefined);
  const rel = path === undefined ? undefined : relative(root, path);
  if (rel === undefined || rel === '' || rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel)) {
    throw new LoadError('source_not_found', `package folder ${dir} has no module ${chosen} inside it; set package.main to the module to load`);
  }
  if (!(await stat(path!)).isFile()) throw new LoadError('source_not_found', `${chosen} in package folder ${dir} is not a file`);
  return path!;
}
