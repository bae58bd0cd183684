import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ChartValuesSchema } from './chart-values-schema.ts';
import { chartDir } from './chart-files.ts';
import { HelmError, helmTemplate } from './helm-template.ts';
import { renderValuesSchema, VALUES_SCHEMA_FILE } from './values-schema-json.ts';

const defaults = parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const ciFiles = readdirSync(join(chartDir, 'ci')).filter((f) => f.endsWith('-values.yaml')).sort();

/** Helm's coalescing: maps merge key by key, everything else is replaced. */
function merge(base: unknown, over: unknown): unknown {
  if (base && over && typeof base === 'object' && typeof over === 'object' && !Array.isArray(base) && !Array.isArray(over)) {
    const out: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(over)) out[k] = merge(out[k], v);
    return out;
  }
  return over;
}

describe('values.schema.json', () => {
  it('is not stale: npm run gen:values-schema output equals the file on disk', () => {
    expect(readFileSync(join(chartDir, VALUES_SCHEMA_FILE), 'utf8'), `${VALUES_SCHEMA_FILE} is stale: run npm run gen:values-schema`).toBe(renderValuesSchema());
  });

  it.each([['values.yaml', {}], ...ciFiles.map((f) => [`ci/${f}`, parse(readFileSync(join(chartDir, 'ci', f), 'utf8')) as unknown])])('%s fits the schema', (_name, over) => {
    const r = ChartValuesSchema.safeParse(merge(defaults, over));
    expect(r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)).toEqual([]);
  });

  it('the ci/ folder has the defaults install and the test cluster install', () => {
    expect(ciFiles).toEqual(['defaults-values.yaml', 'test-values.yaml']);
  });

  it('helm refuses a misspelt key, a wrong type and a bad enum before rendering anything', { timeout: 60_000 }, () => {
    expect(() => helmTemplate({ operator: { replicaz: 3 } })).toThrow(HelmError);
    expect(() => helmTemplate({ operator: { replicaz: 3 } })).toThrow(/additional properties 'replicaz' not allowed/);
    expect(() => helmTemplate({ router: { replicas: 'two' } })).toThrow(/\/router\/replicas/);
    expect(() => helmTemplate({ webhook: { failurePolicy: 'Sometimes' } })).toThrow(/\/webhook\/failurePolicy/);
    expect(() => helmTemplate({ serviceAccount: { name: 'one-for-all' } })).toThrow(/\/serviceAccount\/name/);
    // The same values, spelt right, render.
    expect(helmTemplate({ operator: { replicas: 3 } }).objects.length).toBeGreaterThan(20);
  });
});
