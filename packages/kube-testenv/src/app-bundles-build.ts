/**
 * The process kubelet runs what Orrery's images run: the compiled entrypoints
 * apps/<app>/dist/orrery-<app>.mjs (scripts/build-apps.mjs). Before Kubernetes tests start they
 * are rebuilt when any input is newer than the oldest bundle, so a test never runs stale code;
 * `npm test` builds them first (scripts/test.sh), so this then finds them fresh.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { parseDockerfile } from './kubelet/dockerfile.ts';

/** The built files the apps' Dockerfiles start (ENTRYPOINT words under dist/: a bundle, the runtime's body and code cache; the console's is not). */
export function bundleFiles(repoRoot: string): string[] {
  return readdirSync(join(repoRoot, 'apps'))
    .filter((a) => existsSync(join(repoRoot, 'apps', a, 'Dockerfile')))
    .flatMap((a) => parseDockerfile(readFileSync(join(repoRoot, 'apps', a, 'Dockerfile'), 'utf8')).entrypoint.filter((w) => /(^|\/)dist\//.test(w)))
    .map((script) => join(repoRoot, script));
}

/** Everything a bundle is made from: the workspaces' source, the migrations, the lock file, the build script. */
export function bundleInputs(repoRoot: string): string[] {
  const roots = ['apps', 'packages'].flatMap((d) => readdirSync(join(repoRoot, d)).map((w) => join(repoRoot, d, w, 'src')));
  roots.push(join(repoRoot, 'packages', 'db', 'drizzle'));
  const files = ['package-lock.json', 'scripts/build-apps.mjs', 'scripts/app-bundles.mjs'].map((f) => join(repoRoot, f));
  for (const root of roots.filter((r) => existsSync(r))) {
    for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) files.push(join(entry.parentPath, entry.name));
    }
  }
  return files;
}

/** Fresh when every bundle exists and none is older than the newest input. */
export function bundlesFresh(bundleMtimes: Array<number | undefined>, inputMtimes: number[]): boolean {
  if (bundleMtimes.some((m) => m === undefined)) return false;
  const oldestBundle = Math.min(...(bundleMtimes as number[]));
  return inputMtimes.every((m) => m <= oldestBundle);
}

const mtime = (f: string): number | undefined => (existsSync(f) ? statSync(f).mtimeMs : undefined);

/** Builds the bundles unless they are fresh; throws with the build's output when it fails. */
export function ensureAppBundles(repoRoot: string, log: (line: string) => void): void {
  const inputs = bundleInputs(repoRoot).map(mtime).filter((m): m is number => m !== undefined);
  if (bundlesFresh(bundleFiles(repoRoot).map(mtime), inputs)) return;
  log('[kube-testenv] building the apps the process kubelet runs (npm run build:apps)');
  const r = spawnSync(process.execPath, [join(repoRoot, 'scripts', 'build-apps.mjs')], { cwd: repoRoot, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`npm run build:apps failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
  for (const line of r.stdout.trim().split('\n')) log(`[kube-testenv] ${line}`);
}
