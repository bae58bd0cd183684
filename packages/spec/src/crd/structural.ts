/**
 * The Kubernetes "structural schema" rules (apiextensions.k8s.io/v1) that a generated
 * openAPIV3Schema must satisfy, as a checker returning every violation with its location.
 * https://kubernetes.io/docs/tasks/extend-kubernetes/custom-resources/custom-resource-definitions/#specifying-a-structural-schema
 */
const ALLOWED = new Set([
  'type', 'description', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'default', 'pattern',
  'format', 'minLength', 'maxLength', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems',
  'maxItems', 'multipleOf', 'nullable', 'title', 'example', 'minProperties', 'maxProperties',
  'x-kubernetes-validations', 'x-kubernetes-preserve-unknown-fields', 'x-kubernetes-int-or-string',
  'x-kubernetes-list-type', 'x-kubernetes-list-map-keys', 'x-kubernetes-map-type', 'x-kubernetes-embedded-resource',
]);
const TYPES = new Set(['object', 'array', 'string', 'integer', 'number', 'boolean']);

type Node = Record<string, unknown>;

export function structuralViolations(root: Node): string[] {
  const out: string[] = [];
  walk(root, '', out, true);
  return out;
}

function walk(node: Node, at: string, out: string[], isRoot = false): void {
  const where = at || '<root>';
  for (const key of Object.keys(node)) {
    if (!ALLOWED.has(key)) out.push(`${where}: "${key}" is not allowed in a structural schema`);
  }
  const type = node.type;
  const preserve = node['x-kubernetes-preserve-unknown-fields'] === true || node['x-kubernetes-int-or-string'] === true;
  if (typeof type !== 'string' || type === '') {
    if (!preserve) out.push(`${where}: every field must have a non-empty type`);
  } else if (!TYPES.has(type)) out.push(`${where}: unknown type "${type}"`);

  if (node.properties !== undefined && node.additionalProperties !== undefined) {
    out.push(`${where}: properties and additionalProperties are mutually exclusive`);
  }
  if (node.additionalProperties === false || node.additionalProperties === true) {
    out.push(`${where}: additionalProperties must be a schema, not a boolean`);
  }
  if ((node.properties !== undefined || node.additionalProperties !== undefined) && type !== 'object') {
    out.push(`${where}: properties need type object`);
  }
  if (type === 'array' && typeof node.items !== 'object') out.push(`${where}: an array must declare items`);
  if (node.uniqueItems === true) out.push(`${where}: uniqueItems is forbidden`);
  if (Array.isArray(node.required)) {
    for (const r of node.required as string[]) {
      if (!(node.properties as Node | undefined)?.[r]) out.push(`${where}: required "${r}" is not a property`);
    }
  }
  if (node.default !== undefined) {
    if (isRoot) out.push(`${where}: the root must not have a default`);
    for (const problem of defaultProblems(node, node.default, '')) out.push(`${where}: default ${problem}`);
  }

  const props = (node.properties ?? {}) as Record<string, Node>;
  for (const [k, v] of Object.entries(props)) {
    const child = at ? `${at}.${k}` : k;
    if (isRoot && k === 'metadata') {
      // Kubernetes owns metadata: only `type: object` (plus name/generateName restrictions) is allowed.
      const extra = Object.keys(v).filter((x) => x !== 'type');
      if (v.type !== 'object' || extra.length > 0) out.push(`metadata: only "type: object" is allowed at the root metadata`);
      continue;
    }
    walk(v, child, out);
  }
  if (typeof node.additionalProperties === 'object' && node.additionalProperties !== null) {
    walk(node.additionalProperties as Node, `${at}.*`, out);
  }
  if (typeof node.items === 'object' && node.items !== null) walk(node.items as Node, `${at}[]`, out);
}

/** A default must survive pruning and validation unchanged: same types, known fields, enum members. */
function defaultProblems(schema: Node, value: unknown, at: string): string[] {
  const here = at || 'value';
  switch (schema.type) {
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${here} is not an object`];
      const props = schema.properties as Record<string, Node> | undefined;
      const problems: string[] = [];
      for (const [k, v] of Object.entries(value)) {
        const sub = props?.[k] ?? (schema.additionalProperties as Node | undefined);
        if (!sub) problems.push(`${here}.${k} would be pruned`);
        else problems.push(...defaultProblems(sub, v, `${here}.${k}`));
      }
      return problems;
    }
    case 'array':
      if (!Array.isArray(value)) return [`${here} is not an array`];
      return value.flatMap((v, i) => defaultProblems(schema.items as Node, v, `${here}[${i}]`));
    case 'string':
      if (typeof value !== 'string') return [`${here} is not a string`];
      break;
    case 'integer':
      if (!Number.isInteger(value)) return [`${here} is not an integer`];
      break;
    case 'number':
      if (typeof value !== 'number') return [`${here} is not a number`];
      break;
    case 'boolean':
      if (typeof value !== 'boolean') return [`${here} is not a boolean`];
      break;
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) return [`${here} is not one of the enum values`];
  return [];
}
