/**
 * Regenerates the field tables and the reason catalog inside docs/resources.md (between the
 * GENERATED markers); the prose around them is hand-written. A test fails when they are stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spliceGenerated } from '../src/docs/field-tables.ts';

const file = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'resources.md');
writeFileSync(file, spliceGenerated(readFileSync(file, 'utf8')));
console.log('wrote docs/resources.md');
