/**
 * `npm run bench`: runs every benchmark under bench/<name>/index.ts one after another
 * (never in parallel: they would measure each other). `npm run bench -- router` runs one.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const benchDir = dirname(fileURLToPath(import.meta.url));
const only = new Set(process.argv.slice(2));
const names = readdirSync(benchDir, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(benchDir, d.name, 'index.ts')))
  .map((d) => d.name)
  .filter((n) => only.size === 0 || only.has(n))
  .sort();

if (names.length === 0) {
  console.error(`no benchmark matched ${[...only].join(', ') || '(none under bench/)'}`);
  process.exit(1);
}
let failed = 0;
for (const name of names) {
  console.log(`\n=== bench/${name} ===`);
  const started = Date.now();
  const r = spawnSync(process.execPath, ['--import', 'tsx', join(benchDir, name, 'index.ts')], { stdio: 'inherit' });
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  if (r.status !== 0) failed++;
  console.log(`=== bench/${name}: ${r.status === 0 ? 'done' : `failed (exit ${r.status})`} in ${secs}s ===`);
}
process.exit(failed ? 1 : 0);
