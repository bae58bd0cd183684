/**
 * Structural checks over a template's actions: blocks balanced, parentheses balanced,
 * the `.Values` paths it reads, and the named templates it defines and includes.
 */
import { templateActions, TemplateSyntaxError, type TemplateAction } from './template-actions.ts';

const BLOCK_OPENERS = new Set(['if', 'range', 'with', 'define', 'block']);

/** Problems with block nesting and parentheses; [] when the template is balanced. */
export function balanceProblems(text: string): string[] {
  let actions: TemplateAction[];
  try {
    actions = templateActions(text);
  } catch (err) {
    if (err instanceof TemplateSyntaxError) return [err.message];
    throw err;
  }
  const problems: string[] = [];
  const stack: Array<{ keyword: string; line: number }> = [];
  for (const action of actions) {
    if (action.isComment) continue;
    if (action.body === '') {
      problems.push(`line ${action.line}: empty action`);
      continue;
    }
    const paren = parenProblem(action.body);
    if (paren) problems.push(`line ${action.line}: ${paren}`);
    const keyword = action.body.split(/\s+/)[0]!;
    if (BLOCK_OPENERS.has(keyword)) {
      stack.push({ keyword, line: action.line });
    } else if (keyword === 'else') {
      const top = stack.at(-1);
      if (!top || !['if', 'with', 'range'].includes(top.keyword)) problems.push(`line ${action.line}: "else" outside if/with/range`);
    } else if (keyword === 'end') {
      if (action.body !== 'end') problems.push(`line ${action.line}: "end" takes no arguments`);
      if (!stack.pop()) problems.push(`line ${action.line}: "end" without an open block`);
    }
  }
  for (const open of stack) problems.push(`line ${open.line}: "${open.keyword}" is never closed by "end"`);
  return problems;
}

function parenProblem(body: string): string | undefined {
  let depth = 0;
  const code = body.replace(/"(\\.|[^"\\])*"|`[^`]*`|'(\\.|[^'\\])'/g, '""');
  for (const ch of code) {
    if (ch === '(') depth += 1;
    else if (ch === ')') depth -= 1;
    if (depth < 0) return 'unbalanced ")"';
  }
  return depth === 0 ? undefined : 'unclosed "("';
}

export interface ValuesReference {
  path: string[];
  line: number;
}

/** Every `.Values.a.b` chain read by the template (also through `.root.Values` / `$.Values`). */
export function valuesReferences(text: string): ValuesReference[] {
  const refs: ValuesReference[] = [];
  for (const action of templateActions(text)) {
    if (action.isComment) continue;
    const code = action.body.replace(/"(\\.|[^"\\])*"|`[^`]*`/g, '""');
    for (const m of code.matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)) {
      refs.push({ path: m[1]!.slice(1).split('.'), line: action.line });
    }
  }
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

/** Names given to `define`. */
export function definedTemplates(text: string): string[] {
  return namedIn(text, /^(?:define|block)\s+"([^"]+)"/);
}

/** Names used by `include` or `template`. */
export function includedTemplates(text: string): string[] {
  const names: string[] = [];
  for (const action of templateActions(text)) {
    if (action.isComment) continue;
    for (const m of action.body.matchAll(/(?:\binclude|^template)\s+"([^"]+)"/g)) names.push(m[1]!);
  }
  return names;
}

function namedIn(text: string, pattern: RegExp): string[] {
  return templateActions(text).flatMap((a) => {
    const m = a.isComment ? null : a.body.match(pattern);
    return m ? [m[1]!] : [];
  });
}
