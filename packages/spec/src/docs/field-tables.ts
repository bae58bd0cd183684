import type { z } from 'zod';
import { crdFor, describeTree } from '../crd/definitions.ts';
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
  parts.push('### Rules the API server enforces (CEL)', '');
  parts.push(
    'The CRDs carry these `x-kubernetes-validations`, so the API server refuses a broken object even without the admission',
    'webhook; the message is the webhook\'s, followed by the reason code. Each is the twin of a TypeScript rule in',
    '`packages/spec/src/validate/rules/` (a test checks that the two agree).',
    '',
    '| kind | on | reason | CEL |',
    '|---|---|---|---|',
  );
  for (const kind of RESOURCE_KINDS) {
    for (const { path, reason, rule } of celRules(crdRoot(kind), '')) parts.push(`| ${kind} | \`${path || '(the object)'}\` | \`${reason}\` | ${cell(`\`${rule}\``)} |`);
  }
  parts.push('');
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

function crdRoot(kind: (typeof RESOURCE_KINDS)[number]): OpenApiSchema {
  const crd = crdFor(kind) as { spec: { versions: Array<{ schema: { openAPIV3Schema: OpenApiSchema } }> } };
  return crd.spec.versions[0]!.schema.openAPIV3Schema;
}

/** Every CEL rule of a schema with the path of the node it sits on and the reason its message ends with. */
function celRules(node: OpenApiSchema, path: string): Array<{ path: string; reason: string; rule: string }> {
  const out = (node['x-kubernetes-validations'] ?? []).map((v) => ({
    path: v.fieldPath ? `${path}${v.fieldPath}` : path,
    reason: /\(([a-z0-9_]+)\)$/.exec(v.message)?.[1] ?? '?',
    rule: v.rule,
  }));
  for (const [k, v] of Object.entries(node.properties ?? {})) out.push(...celRules(v, path ? `${path}.${k}` : k));
  if (node.items) out.push(...celRules(node.items, `${path}[]`));
  return out;
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
  if (node.maxItems !== undefined) out.push(`≤ ${node.maxItems} items`);
  if (node['x-kubernetes-validations']) out.push(`CEL: ${node['x-kubernetes-validations'].map((v) => `\`${/\(([a-z0-9_]+)\)$/.exec(v.message)?.[1] ?? '?'}\``).join(', ')}`);
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
