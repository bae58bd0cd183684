/**
 * `npm run gen:values-schema`: writes charts/orrery/values.schema.json from the zod schema of the
 * chart's values. A test regenerates it in memory and fails when the file on disk is stale.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chartDir } from '../src/chart-files.ts';
import { renderValuesSchema, VALUES_SCHEMA_FILE } from '../src/values-schema-json.ts';

writeFileSync(join(chartDir, VALUES_SCHEMA_FILE), renderValuesSchema());
console.log(`wrote charts/orrery/${VALUES_SCHEMA_FILE}`);
