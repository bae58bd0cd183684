/**
 * The `.Values.a.b` paths a template names, found by a scan of its text (not by rendering: helm
 * renders the chart, see helm-template.ts). `helm lint --strict` does not report a template that
 * reads a key values.yaml lacks (a missing leaf renders as empty), so a test compares the two.
 */
export interface ValuesReference {
  path: string[];
  line: number;
}

/** Every `.Values.a.b` chain in a template (also through `$.Values` / `.root.Values`), outside string literals. */
export function valuesReferences(text: string): ValuesReference[] {
  const refs: ValuesReference[] = [];
  text.split('\n').forEach((line, i) => {
    for (const action of line.matchAll(/\{\{(.*?)\}\}/g)) {
      const code = action[1]!.replace(/"(\\.|[^"\\])*"|`[^`]*`/g, '""');
      if (code.trimStart().startsWith('-/*') || code.trimStart().startsWith('/*')) continue;
      for (const m of code.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) refs.push({ path: m[1]!.slice(1).split('.'), line: i + 1 });
    }
  });
  return refs;
}

/** True when every segment of `path` is a key of the nested plain objects in `values`. */
export function valuesPathExists(values: unknown, path: readonly string[]): boolean {
  let node: unknown = values;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return false;
    node = (node as Record<string, unknown>)[key];
  }
  return true;
}

/** Paths of every leaf in a values tree (scalars, lists and empty maps are leaves). */
export function valuesLeaves(values: unknown, prefix: string[] = []): string[][] {
  if (values !== null && typeof values === 'object' && !Array.isArray(values) && Object.keys(values).length > 0) {
    return Object.entries(values).flatMap(([key, child]) => valuesLeaves(child, [...prefix, key]));
  }
  return [prefix];
}
