import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REASONS } from '../validate/reasons.ts';
import { renderGeneratedDocs, spliceGenerated } from './field-tables.ts';

const docPath = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'docs', 'resources.md');

describe('docs/resources.md', () => {
  const doc = readFileSync(docPath, 'utf8');

  it('has current generated field tables (run npx tsx packages/spec/scripts/gen-resource-docs.ts)', () => {
    expect(spliceGenerated(doc)).toBe(doc);
  });

  it('lists every reason code, and the hand-written rule tables name only real codes', () => {
    for (const reason of Object.keys(REASONS)) expect(doc).toContain(`\`${reason}\``);
    const handWritten = doc.slice(0, doc.indexOf('## Field reference'));
    const named = [...handWritten.matchAll(/`([a-z]+(?:_[a-z0-9]+)+)`/g)].map((m) => m[1]!);
    const notReasons = new Set(['yaml_syntax', 'node_modules']);
    expect(named.filter((r) => !(r in REASONS) && !notReasons.has(r))).toEqual([]);
  });

  it('documents every field with its default', () => {
    const generated = renderGeneratedDocs();
    expect(generated).toContain('| `spec.state.maxKeys` | integer | `0` |');
    expect(generated).toContain('| `spec.syncPeriod` | string | `"10s"` |');
    expect(generated).toContain('| `spec.replicas` | integer | `3` |');
  });
});
