import { z } from 'zod';

/** A JSON Schema (draft 2020-12, OpenAPI 3.1's dialect) as plain data. */
export type JsonSchema = { [key: string]: unknown };

export const COMPONENT_REF_PREFIX = '#/components/schemas/';

/** Where zod puts recursive schemas it was not given a name for. */
const SHARED = '__shared';

/**
 * Named zod schemas → OpenAPI `components.schemas`, each referring to the others by
 * `#/components/schemas/<name>` (so a generated client gets one type per name).
 *
 * Input side (`io: 'input'`): a plain `z.object` ignores unknown keys, so no
 * `additionalProperties: false` is claimed. `z.json()` (a recursive union) becomes `{}`, JSON
 * Schema's "any JSON value", which client generators map to their any-type. Any other unnamed
 * recursive schema is refused: give it a name in the API's `schemas`.
 */
export function componentSchemas(named: Record<string, z.ZodType>): Record<string, JsonSchema> {
  const registry = z.registry<{ id: string }>();
  for (const [id, schema] of Object.entries(named)) {
    if (registry.has(schema)) throw new Error(`schema ${id} is registered twice under different names; give each zod schema one name`);
    registry.add(schema, { id });
  }
  const { schemas } = z.toJSONSchema(registry, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'throw',
    uri: (id) => `${COMPONENT_REF_PREFIX}${id}`,
    override: (ctx) => {
      if (!isJsonValue(ctx.zodSchema)) return;
      for (const key of Object.keys(ctx.jsonSchema)) if (key !== 'description') delete (ctx.jsonSchema as JsonSchema)[key];
    },
  });
  const out: Record<string, JsonSchema> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    if (id === SHARED) continue;
    out[id] = clean(schema) as JsonSchema;
  }
  const text = JSON.stringify(out);
  if (text.includes(`${COMPONENT_REF_PREFIX}${SHARED}`)) {
    throw new Error('a recursive schema has no name; add it to the API\'s `schemas` so it becomes a component');
  }
  return out;
}

const JSON_VALUE_OPTIONS = ['string', 'number', 'boolean', 'null', 'array', 'record'].join();

/** z.json(): a lazy union of the six JSON kinds (told apart from other recursive schemas, which must be named). */
function isJsonValue(schema: unknown): boolean {
  if (!(schema instanceof z.ZodLazy)) return false;
  const inner = schema.unwrap();
  return inner instanceof z.ZodUnion && inner.options.map((o) => (o as z.ZodType).def.type).join() === JSON_VALUE_OPTIONS;
}

/** Keywords whose value is a map of name → schema (the names are data, not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'dependentSchemas']);
/** Keywords whose value is data (values, names), never a schema. */
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required']);

/**
 * Drops what OpenAPI does not need — `$schema`/`$id` per component, `propertyNames: {type:
 * string}` (keys are strings anyway) — and boolean `const`, which client generators mishandle.
 */
function clean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(clean);
  if (typeof node !== 'object' || node === null) return node;
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === '$id') continue;
    if (key === 'propertyNames' && isStringType(value)) continue;
    // Generators turn a boolean const into a string enum (openapi-generator's Python client then
    // refuses `true` itself); the type stays boolean and the description says which value.
    if (key === 'const' && typeof value === 'boolean') continue;
    if (DATA.has(key)) out[key] = value;
    else if (SCHEMA_MAPS.has(key)) out[key] = Object.fromEntries(Object.entries(value as JsonSchema).map(([k, v]) => [k, clean(v)]));
    else out[key] = clean(value);
  }
  return out;
}

function isStringType(value: unknown): boolean {
  return typeof value === 'object' && value !== null && Object.keys(value).length === 1 && (value as JsonSchema).type === 'string';
}
