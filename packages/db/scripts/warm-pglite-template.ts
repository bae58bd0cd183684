/**
 * Writes the migrated PGlite template (src/pglite-template.ts) before many processes need it at
 * once: `npm test` runs this after `npm ci`, so no test file pays for initdb and the migrations.
 */
import { connect, migrate } from '../src/index.ts';
import { templateFile } from '../src/pglite-template.ts';

const started = performance.now();
const conn = connect({ url: '' });
await migrate(conn);
await conn.close();
console.log(`PGlite template ready in ${Math.round(performance.now() - started)} ms: ${templateFile() ?? '(no template: ORRERY_PGLITE_TEMPLATE=off?)'}`);
