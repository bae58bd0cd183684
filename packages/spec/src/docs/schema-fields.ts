import type { z } from 'zod';

/**
 * A zod schema as documentation rows: one row per field (nested objects flattened to dotted
 * paths, array items to `[]`), with its type, whether it is required and its `.describe()` text.
 * Fields whose schema is one of the named schemas are linked, not expanded, so a shape shared by
 * several answers (an instance, a member) is documented once.
 *
 * Walks zod's own definitions rather than JSON Schema: JSON Schema would inline the named
 * schemas, and the identity of a schema object is what says "this is Instance".
 */
export interface FieldRow {
  path: string;
  type: string;
  required: boolean;
  description: string;
}

/** Finds a schema's documented name. `.describe()` clones a schema but keeps its definition. */
export type NameOf = (schema: z.ZodType) => string | undefined;

export function namer(schemas: Record<string, z.ZodType>): NameOf {
  const byDef = new Map<unknown, string>();
  for (const [name, schema] of Object.entries(schemas)) byDef.set(schema._zod.def, name);
  return (schema) => byDef.get(schema._zod.def);
}

export const anchor = (name: string) => `#${name.toLowerCase()}`;

interface Unwrapped {
  inner: z.ZodType;
  optional: boolean;
  nullable: boolean;
  description: string;
}

/** Strips optional / nullable / default wrappers, keeping the first description found. */
function unwrap(schema: z.ZodType): Unwrapped {
  let s = schema;
  let optional = false;
  let nullable = false;
  let description = s.description ?? '';
  for (;;) {
    const def = s._zod.def as { type: string; innerType?: z.ZodType };
    if (def.type === 'optional' || def.type === 'default') optional = true;
    else if (def.type === 'nullable') nullable = true;
    else if (def.type !== 'readonly') break;
    s = def.innerType!;
    description ||= s.description ?? '';
  }
  return { inner: s, optional, nullable, description };
}

/** The type as shown: a link for named schemas, `[]T`, `map[string]T`, literals in quotes. */
export function typeOf(schema: z.ZodType, nameOf: NameOf, allowName = true): string {
  const { inner, nullable } = unwrap(schema);
  const base = baseType(inner, nameOf, allowName);
  return nullable ? `${base} | null` : base;
}

function baseType(s: z.ZodType, nameOf: NameOf, allowName: boolean): string {
  const name = allowName ? nameOf(s) : undefined;
  if (name) return `[${name}](${anchor(name)})`;
  const def = s._zod.def as unknown as Record<string, unknown> & { type: string };
  switch (def.type) {
    case 'string':
      return 'string';
    case 'number':
      return (s as unknown as { isInt?: boolean }).isInt ? 'integer' : 'number';
    case 'boolean':
      return 'boolean';
    case 'literal':
      return (def.values as unknown[]).map((v) => JSON.stringify(v)).join(' | ');
    case 'enum':
      return Object.values(def.entries as Record<string, unknown>).map((v) => JSON.stringify(v)).join(' | ');
    case 'array': {
      const item = typeOf(def.element as z.ZodType, nameOf);
      return `[]${item.includes(' | ') ? `(${item})` : item}`;
    }
    case 'record':
      return `map[string]${typeOf(def.valueType as z.ZodType, nameOf)}`;
    case 'object':
      return 'object';
    case 'union':
      return (def.options as z.ZodType[]).map((o) => typeOf(o, nameOf)).join(' | ');
    case 'lazy':
      // z.json(): any JSON value.
      return 'JSON';
    case 'unknown':
    case 'any':
      return 'any';
    default:
      throw new Error(`schema-fields: no documentation rule for zod type "${def.type}"; add one`);
  }
}

/** The rows of an object schema; [] for anything else (its type says it all). */
export function fieldRows(schema: z.ZodType, nameOf: NameOf, prefix = ''): FieldRow[] {
  const def = schema._zod.def as { type: string; shape?: Record<string, z.ZodType> };
  if (def.type !== 'object') return [];
  const rows: FieldRow[] = [];
  for (const [key, field] of Object.entries(def.shape!)) {
    const u = unwrap(field);
    const path = `${prefix}${key}`;
    rows.push({ path, type: typeOf(field, nameOf), required: !u.optional, description: u.description });
    if (nameOf(u.inner)) continue;
    const innerDef = u.inner._zod.def as { type: string; element?: z.ZodType };
    if (innerDef.type === 'object') rows.push(...fieldRows(u.inner, nameOf, `${path}.`));
    if (innerDef.type === 'array') {
      const item = unwrap(innerDef.element!).inner;
      if (!nameOf(item)) rows.push(...fieldRows(item, nameOf, `${path}[].`));
    }
  }
  return rows;
}
