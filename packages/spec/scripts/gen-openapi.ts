/**
 * `npm run gen:openapi`: writes docs/openapi/*.json (OpenAPI 3.1) from the route tables and zod
 * schemas in packages/spec/src/wire. A test fails when the files on disk are stale.
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OPENAPI_DIR, renderOpenApiFiles } from '../src/openapi/openapi-files.ts';

mkdirSync(OPENAPI_DIR, { recursive: true });
const files = renderOpenApiFiles();
for (const old of readdirSync(OPENAPI_DIR)) {
  if (old.endsWith('.json') && !files.has(old)) rmSync(join(OPENAPI_DIR, old));
}
for (const [name, text] of files) {
  writeFileSync(join(OPENAPI_DIR, name), text);
  console.log(`wrote docs/openapi/${name}`);
}
