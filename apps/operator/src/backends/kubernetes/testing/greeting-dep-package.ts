/**
 * A Node package folder whose module imports `greeting-dep` from a vendored tarball (a `file:`
 * dependency made by `npm pack`, offline): its answer shows the dependency was installed.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Writes `<work>/<name>` (and the dependency's source beside it); the package folder's path. */
export function writeGreetingDepPackage(work: string, name: string, files: { packageJson: string; indexMjs: string }): string {
  const dep = join(work, `${name}-dep`);
  mkdirSync(dep, { recursive: true });
  writeFileSync(join(dep, 'package.json'), JSON.stringify({ name: 'greeting-dep', version: '1.0.0', main: 'index.js' }));
  writeFileSync(join(dep, 'index.js'), "module.exports = (who) => 'hello ' + who + ' from greeting-dep';\n");
  const dir = join(work, name);
  mkdirSync(join(dir, 'vendor'), { recursive: true });
  execFileSync('npm', ['pack', '--silent', '--pack-destination', join(dir, 'vendor')], { cwd: dep, stdio: 'ignore' });
  writeFileSync(join(dir, 'package.json'), files.packageJson);
  writeFileSync(join(dir, 'index.mjs'), files.indexMjs);
  return dir;
}
