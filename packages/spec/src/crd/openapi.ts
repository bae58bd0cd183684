import { z } from 'zod';
import type { CelValidation } from '../validate/rules/object-rule.ts';

/** The subset of OpenAPI v3 schema that a structural CRD schema may use. */
export interface OpenApiSchema {
  type?: 'object' | 'array' | 'string' | 'integer' | 'number' | 'boolean';
  description?: string;
  properties?: Record<string, OpenApiSchema>;
  required?: string[];
  additionalProperties?: OpenApiSchema;
  items?: OpenApiSchema;
  enum?: unknown[];
  default?: unknown;
  pattern?: string;
  format?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: boolean;
  exclusiveMaximum?: boolean;
  minItems?: number;
  maxItems?: number;
  'x-kubernetes-validations'?: CelValidation[];
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}

const SAFE = Number.MAX_SAFE_INTEGER;
const DROP = new Set(['$schema', 'propertyNames', 'id', '$id']);

/**
 * zod → OpenAPI v3 (input side: defaults present, defaulted fields optional), then cleaned so
 * Kubernetes accepts it as structural: no $ref/$defs, no `additionalProperties: false`,
 * no `const`, no `propertyNames`, no zod safe-integer bounds. anyOf/oneOf/allOf/not are
 * refused outright: no kind should need them.
 */
export function toOpenApi(schema: z.ZodType): OpenApiSchema {
  const raw = z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'throw', reused: 'inline', cycles: 'throw' });
  return clean(raw, '');
}

function clean(node: Record<string, unknown>, at: string): OpenApiSchema {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) {
    if (DROP.has(key)) continue;
    switch (key) {
      case '$ref':
      case '$defs':
      case 'definitions':
      case 'anyOf':
      case 'oneOf':
      case 'allOf':
      case 'not':
        throw new Error(`${at || '<root>'}: "${key}" cannot appear in a structural CRD schema; simplify the zod schema`);
      case 'const':
        out.enum = [value];
        break;
      case 'properties':
        out.properties = Object.fromEntries(
          Object.entries(value as Record<string, Record<string, unknown>>).map(([k, v]) => [k, clean(v, `${at}.${k}`)]),
        );
        break;
      case 'items':
        out.items = clean(value as Record<string, unknown>, `${at}[]`);
        break;
      case 'additionalProperties':
        if (typeof value === 'object' && value !== null) out.additionalProperties = clean(value as Record<string, unknown>, `${at}.*`);
        break; // `false` is the structural default (unknown fields are pruned)
      case 'minimum':
      case 'maximum':
        if (Math.abs(value as number) !== SAFE) out[key] = value;
        break;
      case 'required':
        if ((value as string[]).length > 0) out.required = value;
        break;
      default:
        out[key] = value;
    }
  }
  return out;
}
