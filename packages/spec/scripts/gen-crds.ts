/**
 * `npm run gen:crds`: writes charts/orrery/crds/<plural>.orrery.dev.yaml from the zod kinds.
 * A test regenerates in memory and fails when the files on disk are stale.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderCrds } from '../src/crd/render.ts';

const outDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'charts', 'orrery', 'crds');
mkdirSync(outDir, { recursive: true });
const files = renderCrds();
for (const old of readdirSync(outDir)) {
  if (old.endsWith('.orrery.dev.yaml') && !files.has(old)) rmSync(join(outDir, old));
}
for (const [name, text] of files) {
  writeFileSync(join(outDir, name), text);
  console.log(`wrote charts/orrery/crds/${name}`);
}
