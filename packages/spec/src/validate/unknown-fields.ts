import { z } from 'zod';
import { KIND_SCHEMAS, type ResourceKind } from '../resource.ts';
import { formatPath, isRecord } from './path.ts';
import type { Segment, ValidationError } from './types.ts';

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
};

const cache = new Map<ResourceKind, JsonSchema>();

function inputSchema(kind: ResourceKind): JsonSchema {
  let s = cache.get(kind);
  if (!s) {
    s = z.toJSONSchema(KIND_SCHEMAS[kind], { io: 'input', unrepresentable: 'any' }) as JsonSchema;
    cache.set(kind, s);
  }
  return s;
}

/**
 * Fields the kind does not define. Kubernetes prunes them silently, so a typo such as
 * `stikcy:` would otherwise turn a feature off without a word. metadata and status are
 * owned by Kubernetes and the operator, so they are not checked.
 */
export function checkUnknownFields(kind: ResourceKind, obj: Record<string, unknown>): ValidationError[] {
  const errors: ValidationError[] = [];
  const root = inputSchema(kind);
  for (const [key, value] of Object.entries(obj)) {
    if (key === 'metadata' || key === 'status' || key === 'apiVersion' || key === 'kind') continue;
    const sub = root.properties?.[key];
    if (!sub) errors.push(unknown([key]));
    else walk(sub, value, [key], errors);
  }
  return errors;
}

function unknown(path: Segment[]): ValidationError {
  return {
    path: formatPath(path),
    reason: 'unknown_field',
    message: `${formatPath(path)} is not a field of this kind; remove it or fix its spelling (Kubernetes would silently drop it)`,
  };
}

function walk(schema: JsonSchema, value: unknown, path: Segment[], errors: ValidationError[]): void {
  if (schema.type === 'object' && isRecord(value)) {
    for (const [key, v] of Object.entries(value)) {
      const prop = schema.properties?.[key];
      if (prop) walk(prop, v, [...path, key], errors);
      else if (typeof schema.additionalProperties === 'object') walk(schema.additionalProperties, v, [...path, key], errors);
      else if (schema.properties) errors.push(unknown([...path, key]));
    }
  } else if (schema.type === 'array' && Array.isArray(value) && schema.items) {
    value.forEach((v, i) => walk(schema.items!, v, [...path, i], errors));
  }
}
