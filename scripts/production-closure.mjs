/**
 * The installed folders an image needs for a few packages: each package and, transitively, its
 * dependencies and installed optional dependencies, found the way Node resolves them (the nearest
 * node_modules upwards). Versions are whatever `npm ci` laid out from the lock file.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';

/** Where `name` resolves from `fromDir` (a folder inside `root`), or undefined. */
function installedDir(root, fromDir, name) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === root || !dir.startsWith(root)) return undefined;
  }
}

/**
 * `names` → paths relative to `root` (`node_modules/etcd3`, `node_modules/a/node_modules/b`, …),
 * sorted. A missing package is an error; a missing optional dependency (another platform's
 * binary) is skipped.
 */
export function productionClosure(root, names) {
  const found = new Set();
  const visit = (fromDir, name, optional) => {
    const dir = installedDir(root, fromDir, name);
    if (!dir) {
      if (optional) return;
      throw new Error(`${name} is not installed (needed from ${relative(root, fromDir) || '.'}); run npm ci`);
    }
    const rel = relative(root, dir).split(sep).join('/');
    if (found.has(rel)) return;
    found.add(rel);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const optionalDeps = new Set([...Object.keys(pkg.optionalDependencies ?? {}), ...Object.keys(pkg.peerDependenciesMeta ?? {})]);
    for (const dep of Object.keys(pkg.dependencies ?? {})) visit(dir, dep, optionalDeps.has(dep));
    for (const dep of Object.keys(pkg.optionalDependencies ?? {})) visit(dir, dep, true);
    // Required peers resolve like dependencies (npm 7+ installs them).
    for (const dep of Object.keys(pkg.peerDependencies ?? {})) visit(dir, dep, optionalDeps.has(dep));
  };
  for (const name of names) visit(root, name, false);
  return [...found].sort();
}
