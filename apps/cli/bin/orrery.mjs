#!/usr/bin/env node
// In the repository: the compiled bundle (npm run build:apps) when it is fresh, else the
// TypeScript source through tsx (scripts/app-launch.mjs says how it decides). Installed from the
// npm tarball (no src/): runs that package's bundle, dist/orrery.mjs.
import { existsSync } from 'node:fs';

if (existsSync(new URL('../src/main.ts', import.meta.url))) {
  const { launchApp } = await import('../../../scripts/app-launch.mjs');
  await launchApp('cli');
} else {
  await import('../dist/orrery.mjs');
}
