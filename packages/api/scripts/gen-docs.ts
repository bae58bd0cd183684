// Regenerates the procedure table in docs/api.md from the router definition:
// `npx tsx packages/api/scripts/gen-docs.ts` (a test fails when the table is stale).
import { readFileSync, writeFileSync } from 'node:fs';
import { API_DOC_PATH, renderProcedureTable, replaceGenerated } from '../src/docs/procedure-table.ts';

writeFileSync(API_DOC_PATH, replaceGenerated(readFileSync(API_DOC_PATH, 'utf8'), renderProcedureTable()));
console.log(`updated ${API_DOC_PATH}`);
