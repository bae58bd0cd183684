/**
 * Regenerates docs/http-api.md (the HTTP API reference) from the route tables and zod schemas
 * in packages/spec/src/wire: `npm run gen:http-docs`. A test fails when the file is stale.
 */
import { writeFileSync } from 'node:fs';
import { HTTP_DOC_PATH, renderHttpReference } from '../src/docs/http-reference.ts';

writeFileSync(HTTP_DOC_PATH, renderHttpReference());
console.log('wrote docs/http-api.md');
