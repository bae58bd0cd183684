#!/usr/bin/env node
// In the repo: runs the TypeScript source through tsx (internal packages ship as source, no
// build step). Installed from the npm tarball (no src/): runs the bundle, dist/orrery.mjs.
import { existsSync } from 'node:fs';

const source = new URL('../src/main.ts', import.meta.url);
if (existsSync(source)) {
  const { register } = await import('tsx/esm/api');
  register();
  await import(source.href);
} else {
  await import('../dist/orrery.mjs');
}
