#!/usr/bin/env node
/**
 * Exit 0 when every app's bundle is fresh (scripts/app-launch.mjs), else 1, naming the stale ones.
 * `npm start` runs it to compile the apps only when needed.
 */
import { APP_NAMES } from './app-bundles.mjs';
import { bundleStaleness } from './app-launch.mjs';

const stale = APP_NAMES.map((app) => [app, bundleStaleness(app)]).filter(([, why]) => why !== undefined);
for (const [app, why] of stale) console.log(`orrery-${app}: ${why}`);
process.exit(stale.length ? 1 : 0);
