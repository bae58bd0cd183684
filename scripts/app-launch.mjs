/**
 * How an app's bin (apps/<app>/bin/orrery-<app>.mjs) starts it inside the repository: the
 * compiled bundle that `npm run build:apps` wrote (localBundlePath: the image's, or one that keeps
 * what the image leaves out), when it is fresh, else the TypeScript source
 * through tsx. The bundle is what the images run; started from it an app costs ~0.3 s of CPU
 * instead of 1–2.5 s through tsx (which compiles every module at start), and it holds less memory.
 *
 * Fresh means: built after the last change to every file it was made from (the inputs esbuild
 * read, the lock file, the build scripts; scripts/build-apps.mjs lists them beside the bundle).
 * An edited source therefore always runs as source until the next build: never stale code.
 *
 * ORRERY_APP_SOURCE=tsx always runs the source; =bundle refuses to start without a fresh bundle.
 */
import { readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleInputsPath, localBundlePath } from './app-bundles.mjs';

const ROOT = resolve(fileURLToPath(import.meta.url), '..', '..');

/** Why the bundle cannot run (undefined: it is fresh). Reads only the manifest and the inputs' mtimes. */
export function bundleStaleness(app, root = ROOT) {
  let manifest;
  try {
    statSync(join(root, localBundlePath(app)));
    manifest = JSON.parse(readFileSync(join(root, bundleInputsPath(app)), 'utf8'));
  } catch {
    return 'not built (npm run build:apps)';
  }
  if (!Number.isFinite(manifest?.startedAt) || !Array.isArray(manifest?.inputs)) return 'its input list is unreadable';
  for (const input of manifest.inputs) {
    let mtime;
    try {
      mtime = statSync(join(root, input)).mtimeMs;
    } catch {
      return `${input} is gone`;
    }
    if (mtime > manifest.startedAt) return `${input} changed after the build`;
  }
  return undefined;
}

/**
 * The bundle a bin would run for `app` (an absolute path) when it is fresh and
 * ORRERY_APP_SOURCE does not ask for the source; undefined otherwise. For other starters of an
 * app (the local operator's workers run the runtime's).
 */
export function freshBundle(app, root = ROOT) {
  if (process.env.ORRERY_APP_SOURCE === 'tsx') return undefined;
  return bundleStaleness(app, root) === undefined ? join(root, localBundlePath(app)) : undefined;
}

/** Runs the app: its fresh bundle, or its source through tsx. */
export async function launchApp(app) {
  const mode = process.env.ORRERY_APP_SOURCE ?? 'auto';
  if (mode !== 'auto' && mode !== 'tsx' && mode !== 'bundle') {
    console.error(`ORRERY_APP_SOURCE must be auto, tsx or bundle, got "${mode}"`);
    process.exit(2);
  }
  const stale = mode === 'tsx' ? 'ORRERY_APP_SOURCE=tsx' : bundleStaleness(app);
  if (stale === undefined) {
    await import(new URL(`../${localBundlePath(app)}`, import.meta.url).href);
    return;
  }
  if (mode === 'bundle') {
    console.error(`orrery-${app}: ORRERY_APP_SOURCE=bundle, but the bundle cannot run: ${stale}`);
    process.exit(2);
  }
  const { register } = await import('tsx/esm/api');
  register();
  await import(new URL(`../apps/${app}/src/main.ts`, import.meta.url).href);
}
