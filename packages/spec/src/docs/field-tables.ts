import type { z } from 'zod';
import { describeTree } from '../crd/definitions.ts';
import { toOpenApi, type OpenApiSchema } from '../crd/openapi.ts';
import { KIND_SCHEMAS, RESOURCE_KINDS } from '../resource.ts';
import { REASONS } from '../validate/reasons.ts';
import { cell } from './markdown-cell.ts';

/**
 * The generated parts of docs/resources.md: one field table per kind (spec and status) from
 * the same schemas the CRDs come from, and the reason catalog. A test keeps the file current.
 */
export const BEGIN = '<!-- BEGIN GENERATED: npx tsx packages/spec/scripts/gen-resource-docs.ts -->';
export const END = '<!-- END GENERATED -->';

export function renderGeneratedDocs(): string {
  const parts: string[] = [];
  for (const kind of RESOURCE_KINDS) {
    const schema = KIND_SCHEMAS[kind] as unknown as z.ZodObject<{ spec: z.ZodType; status: z.ZodType }>;
    parts.push(`### ${kind} fields`, '');
    parts.push(table(describeTree(kind, toOpenApi(schema.shape.spec), 'spec'), 'spec'), '');
    parts.push(`<details><summary>${kind} status (written by the operator)</summary>`, '');
    parts.push(table(describeTree(kind, toOpenApi(schema.shape.status), 'status'), 'status'), '', '</details>', '');
  }
  parts.push('### Reason codes', '', '| reason | what to do |', '|---|---|');
  for (const [reason, message] of Object.entries(REASONS)) parts.push(`| \`${reason}\` | ${cell(message)} |`);
  parts.push('');
  return parts.join('\n');
}

function table(root: OpenApiSchema, rootPath: string): string {
  const rows = ['| field | type | default | schema rules | description |', '|---|---|---|---|---|'];
  const walk = (node: OpenApiSchema, path: string, required: boolean) => {
    rows.push(`| \`${path}\` | ${typeOf(node)} | ${node.default === undefined ? '' : `\`${JSON.stringify(node.default)}\``} | ${cell(rules(node, required))} | ${cell(node.description ?? '')} |`);
    for (const [k, v] of Object.entries(node.properties ?? {})) walk(v, `${path}.${k}`, node.required?.includes(k) ?? false);
    if (node.items?.properties) {
      for (const [k, v] of Object.entries(node.items.properties)) walk(v, `${path}[].${k}`, node.items.required?.includes(k) ?? false);
    }
  };
  walk(root, rootPath, rootPath === 'spec');
  return rows.join('\n');
}

function typeOf(node: OpenApiSchema): string {
  if (node.type === 'array') return `[]${node.items ? typeOf(node.items) : '?'}`;
  if (node.type === 'object' && node.additionalProperties) return `map[string]${typeOf(node.additionalProperties)}`;
  return node.type ?? '?';
}

function rules(node: OpenApiSchema, required: boolean): string {
  const out: string[] = [];
  if (required) out.push('required');
  if (node.enum) out.push(`one of ${node.enum.map((v) => `\`${String(v)}\``).join(', ')}`);
  if (node.pattern) out.push(`matches \`${node.pattern}\``);
  if (node.minLength !== undefined) out.push(`length ≥ ${node.minLength}`);
  if (node.maxLength !== undefined) out.push(`length ≤ ${node.maxLength}`);
  if (node.minimum !== undefined) out.push(`${node.exclusiveMinimum ? '>' : '≥'} ${node.minimum}`);
  if (node.maximum !== undefined) out.push(`${node.exclusiveMaximum ? '<' : '≤'} ${node.maximum}`);
  return out.join('; ');
}

/** docs text with the generated block replaced (or appended when the markers are missing). */
export function spliceGenerated(doc: string): string {
  const block = `${BEGIN}\n\n${renderGeneratedDocs()}\n${END}`;
  const start = doc.indexOf(BEGIN);
  const end = doc.indexOf(END);
  if (start < 0 || end < start) return `${doc.trimEnd()}\n\n${block}\n`;
  return doc.slice(0, start) + block + doc.slice(end + END.length);
}
