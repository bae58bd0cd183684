import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderCrds } from './render.ts';
import { structuralViolations } from './structural.ts';

const crdDir = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'charts', 'orrery', 'crds');

type Crd = {
  spec: {
    names: { kind: string; shortNames: string[] };
    versions: Array<{ name: string; subresources: Record<string, unknown>; additionalPrinterColumns: unknown[]; schema: { openAPIV3Schema: Record<string, unknown> } }>;
  };
};

/** A loosely typed view of an OpenAPI schema node, enough for assertions. */
interface SchemaNode {
  description?: string;
  properties?: Record<string, SchemaNode>;
  items?: SchemaNode;
  [key: string]: unknown;
}

const rendered = renderCrds();

describe('generated CRDs', () => {
  it('are not stale: npm run gen:crds output equals the files on disk', () => {
    const onDisk = readdirSync(crdDir).filter((f) => f.endsWith('.orrery.dev.yaml')).sort();
    expect(onDisk).toEqual([...rendered.keys()].sort());
    for (const [name, text] of rendered) {
      expect(readFileSync(join(crdDir, name), 'utf8'), `${name} is stale: run npm run gen:crds`).toBe(text);
    }
  });

  it('cover the five kinds with their short names, status subresource and printer columns', () => {
    const byKind = new Map<string, Crd>();
    for (const text of rendered.values()) {
      const crd = parse(text) as Crd;
      byKind.set(crd.spec.names.kind, crd);
    }
    const shortNames = Object.fromEntries([...byKind].map(([k, c]) => [k, c.spec.names.shortNames]));
    expect(shortNames).toEqual({ Function: ['fn'], Revision: ['rev'], Environment: ['env'], RegistryCluster: ['rc'], StateSync: ['ss'] });
    for (const crd of byKind.values()) {
      const [version] = crd.spec.versions;
      expect(version?.name).toBe('v1alpha1');
      expect(version?.subresources).toEqual({ status: {} });
      expect(version?.additionalPrinterColumns.length).toBeGreaterThanOrEqual(3);
    }
  });

  it.each([...rendered.keys()])('%s is structural', (name) => {
    const crd = parse(rendered.get(name)!) as Crd;
    expect(structuralViolations(crd.spec.versions[0]!.schema.openAPIV3Schema)).toEqual([]);
  });

  it('carries the validation that a schema can express (keyspace pattern, quotas, traffic percent)', () => {
    const crd = parse(rendered.get('functions.orrery.dev.yaml')!) as Crd;
    const spec = (crd.spec.versions[0]!.schema.openAPIV3Schema as SchemaNode).properties!.spec!.properties!;
    expect(spec.state!.properties!.keyspace).toMatchObject({ type: 'string', maxLength: 63, pattern: '^[a-z0-9]([a-z0-9-]*[a-z0-9])?$' });
    expect(spec.state!.properties!.maxKeys).toMatchObject({ type: 'integer', minimum: 0, default: 0 });
    expect(spec.traffic!.items!.properties!.percent).toMatchObject({ type: 'integer', minimum: 0, maximum: 100 });
    expect(spec.state!.properties!.sticky!.properties!.source!.enum).toEqual(['header', 'queryparam', 'cookie']);
  });
});

describe('structural checker', () => {
  const ok = { type: 'object', properties: { metadata: { type: 'object' }, spec: { type: 'object', properties: { a: { type: 'string' } } } } };
  it('accepts a structural schema', () => {
    expect(structuralViolations(ok)).toEqual([]);
  });
  it.each([
    ['untyped field', { type: 'object', properties: { a: {} } }, 'a: every field must have a non-empty type'],
    ['$ref', { type: 'object', properties: { a: { $ref: '#/x', type: 'string' } } }, 'a: "$ref" is not allowed in a structural schema'],
    ['anyOf', { type: 'object', properties: { a: { type: 'string', anyOf: [{ type: 'string' }] } } }, 'a: "anyOf" is not allowed in a structural schema'],
    ['additionalProperties false', { type: 'object', properties: { a: { type: 'object', additionalProperties: false } } }, 'a: additionalProperties must be a schema, not a boolean'],
    ['both properties and additionalProperties', { type: 'object', properties: { a: { type: 'object', properties: {}, additionalProperties: { type: 'string' } } } }, 'a: properties and additionalProperties are mutually exclusive'],
    ['array without items', { type: 'object', properties: { a: { type: 'array' } } }, 'a: an array must declare items'],
    ['metadata with fields', { type: 'object', properties: { metadata: { type: 'object', properties: { name: { type: 'string' } } } } }, 'metadata: only "type: object" is allowed at the root metadata'],
    ['default of the wrong type', { type: 'object', properties: { a: { type: 'integer', default: 'x' } } }, 'a: default value is not an integer'],
    ['default that would be pruned', { type: 'object', properties: { a: { type: 'object', properties: {}, default: { b: 1 } } } }, 'a: default value.b would be pruned'],
  ])('rejects %s', (_name, schema, violation) => {
    expect(structuralViolations(schema)).toContain(violation);
  });
});

describe('field descriptions', () => {
  it('every spec and status field of every kind has a description (kubectl explain, docs)', () => {
    const missing: string[] = [];
    const walk = (kind: string, node: SchemaNode, at: string) => {
      for (const [k, v] of Object.entries(node.properties ?? {})) {
        if (!v.description) missing.push(`${kind} ${at}.${k}`);
        walk(kind, v, `${at}.${k}`);
      }
      if (node.items) walk(kind, node.items, `${at}[]`);
    };
    for (const text of rendered.values()) {
      const crd = parse(text) as Crd;
      const root = crd.spec.versions[0]!.schema.openAPIV3Schema as SchemaNode;
      walk(crd.spec.names.kind, root.properties!.spec!, 'spec');
      walk(crd.spec.names.kind, root.properties!.status!, 'status');
    }
    expect(missing).toEqual([]);
  });
});
