import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { componentSchemas, type JsonSchema } from './component-schemas.ts';

const Endpoint = z.object({ host: z.string().describe('Host name.'), port: z.number().int().min(1).max(65535) });
const Instance = z.object({
  id: z.string(),
  endpoints: z.array(Endpoint),
  labels: z.record(z.string(), z.string()),
  propertyNames: z.object({ type: z.string() }).optional().describe('A field that happens to share a JSON Schema keyword name.'),
});
const Write = z.object({ value: z.json().describe('Any JSON.'), strict: z.strictObject({ a: z.number() }) });

/** Ajv over the components, so a `$ref` between them resolves as a client's validator would. */
function validatorOf(components: Record<string, JsonSchema>) {
  const ajv = new Ajv2020({ strict: false });
  for (const [name, schema] of Object.entries(components)) ajv.addSchema(schema, `#/components/schemas/${name}`);
  ajv.addSchema({ components: { schemas: components } }, 'doc');
  return (name: string, value: unknown) => ajv.validate({ $ref: `doc#/components/schemas/${name}` }, value);
}

describe('componentSchemas', () => {
  const components = componentSchemas({ Instance, Endpoint, Write });

  it('names become components that refer to each other by $ref, without $schema or $id', () => {
    expect(Object.keys(components)).toEqual(['Instance', 'Endpoint', 'Write']);
    const instance = components.Instance as { properties: Record<string, JsonSchema> };
    expect(instance.properties.endpoints).toEqual({ type: 'array', items: { $ref: '#/components/schemas/Endpoint' } });
    expect(JSON.stringify(components)).not.toMatch(/"\$schema"|"\$id"|__shared/);
  });

  it('keeps descriptions and bounds; drops redundant propertyNames but not a property of that name', () => {
    const endpoint = components.Endpoint as { properties: Record<string, JsonSchema> };
    expect(endpoint.properties.host).toEqual({ type: 'string', description: 'Host name.' });
    expect(endpoint.properties.port).toMatchObject({ type: 'integer', minimum: 1, maximum: 65535 });
    const instance = components.Instance as { properties: Record<string, JsonSchema> };
    expect(instance.properties.labels).toEqual({ type: 'object', additionalProperties: { type: 'string' } });
    expect(instance.properties.propertyNames).toMatchObject({ type: 'object', properties: { type: { type: 'string' } } });
  });

  it('z.json() is any JSON value ({} plus its description); a plain object allows unknown keys, a strict one does not', () => {
    const write = components.Write as { properties: Record<string, JsonSchema> };
    expect(write.properties.value).toEqual({ description: 'Any JSON.' });
    expect(components.Instance).not.toHaveProperty('additionalProperties');
    expect(write.properties.strict).toMatchObject({ additionalProperties: false });
  });

  it('a string literal stays a const; a boolean one is only its type (generators mishandle boolean consts)', () => {
    const flags = componentSchemas({ Flags: z.object({ kind: z.literal('ok'), deleted: z.literal(true).describe('Always true.') }) }).Flags as { properties: Record<string, JsonSchema> };
    expect(flags.properties.kind).toEqual({ type: 'string', const: 'ok' });
    expect(flags.properties.deleted).toEqual({ type: 'boolean', description: 'Always true.' });
  });

  it('accepts and refuses what the zod schemas accept and refuse', () => {
    const valid = validatorOf(components);
    const samples: [string, z.ZodType, unknown][] = [
      ['Instance', Instance, { id: 'a', endpoints: [{ host: 'h', port: 80 }], labels: { k: 'v' } }],
      ['Instance', Instance, { id: 'a', endpoints: [{ host: 'h', port: 0 }], labels: {} }],
      ['Instance', Instance, { id: 'a', endpoints: [], labels: { k: 1 } }],
      ['Instance', Instance, { endpoints: [], labels: {} }],
      ['Write', Write, { value: { deep: [1, null, 'x'] }, strict: { a: 1 } }],
      ['Write', Write, { value: null, strict: { a: 1, b: 2 } }],
    ];
    for (const [name, schema, value] of samples) expect(valid(name, value), JSON.stringify(value)).toBe(schema.safeParse(value).success);
  });

  it('refuses one schema under two names, and a recursive schema with no name', () => {
    expect(() => componentSchemas({ A: Endpoint, B: Endpoint })).toThrow(/registered twice/);
    interface Tree {
      children: Tree[];
    }
    const Tree: z.ZodType<Tree> = z.lazy(() => z.object({ children: z.array(Tree) }));
    expect(() => componentSchemas({ Forest: z.object({ trees: z.array(Tree) }) })).toThrow(/recursive schema has no name/);
  });
});
