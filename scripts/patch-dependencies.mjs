#!/usr/bin/env node
/**
 * Fixes carried for installed dependencies until their upstream ships them (npm's postinstall
 * runs this after every install, the images' `npm ci` included). Each fix in
 * scripts/dependency-patches/ names a package, the versions it was written for, the files and the
 * exact text it replaces. Applying it twice changes nothing; a package that is not installed is
 * skipped; a version it was not written for, or a file whose text is neither the original nor the
 * fixed one, stops the install with a message saying which — so an upgrade cannot silently drop
 * a fix or patch the wrong code. Tests: scripts/checks and the patched modules' own tests
 * (packages/db/src/postgres-pool-queue.test.ts).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import postgresQueue from './dependency-patches/postgres-queue.mjs';

export const PATCHES = [postgresQueue];

/** Applies `patch` under `nodeModules`; returns what it did, throws when it cannot be applied safely. */
export function applyPatch(patch, nodeModules) {
  const root = join(nodeModules, patch.package);
  const manifest = join(root, 'package.json');
  if (!existsSync(manifest)) return `${patch.package}: not installed, nothing to patch`;
  const version = JSON.parse(readFileSync(manifest, 'utf8')).version;
  if (!patch.versions.includes(version)) {
    throw new Error(`${patch.package}@${version} is installed, but the carried fix was written for ${patch.versions.join(', ')}: check whether ${version} fixes it upstream, then update or remove scripts/dependency-patches/`);
  }
  const done = [];
  for (const file of patch.files) {
    const path = join(root, file);
    const text = readFileSync(path, 'utf8');
    if (text.includes(patch.replace)) continue;
    const at = text.indexOf(patch.find);
    if (at < 0 || text.indexOf(patch.find, at + 1) >= 0) {
      throw new Error(`${patch.package}@${version}: ${file} does not hold the text the carried fix replaces (exactly once): update scripts/dependency-patches/`);
    }
    writeFileSync(path, text.slice(0, at) + patch.replace + text.slice(at + patch.find.length));
    done.push(file);
  }
  return `${patch.package}@${version}: ${done.length ? `patched ${done.join(', ')}` : 'already patched'}`;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const nodeModules = process.argv[2] ?? join(dirname(fileURLToPath(import.meta.url)), '..', 'node_modules');
  try {
    for (const patch of PATCHES) console.log(`[patch-dependencies] ${applyPatch(patch, nodeModules)}`);
  } catch (err) {
    console.error(`[patch-dependencies] ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
}
