import { isValidLabelKey, isValidLabelValue } from '../model/instance.ts';

/** One label requirement; a selector is a list of them, all of which must hold (AND). */
export type Requirement =
  | { op: 'exists'; key: string }
  | { op: 'notExists'; key: string }
  | { op: 'eq'; key: string; value: string }
  | { op: 'neq'; key: string; value: string }
  | { op: 'in'; key: string; values: string[] }
  | { op: 'notin'; key: string; values: string[] };

export const SELECTOR_SYNTAX = 'key, !key, key=value, key!=value, key in (v1,v2), key notin (v1,v2)';
export const SELECTOR_VALID_EXAMPLE = 'selector=color=gray,version in (v2),!deprecated';
export const SELECTOR_INVALID_EXAMPLE = 'selector=version in v2';

export class SelectorError extends Error {}

function selectorMessage(selector: string, reason: string): string {
  return `invalid selector "${selector}": ${reason}; supported selector syntax: ${SELECTOR_SYNTAX}; valid example: ${SELECTOR_VALID_EXAMPLE}; invalid example: ${SELECTOR_INVALID_EXAMPLE}`;
}

/** Splits on commas that are not inside parentheses. */
function splitTopLevel(text: string, selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '(') {
      depth++;
      if (depth > 1) throw new SelectorError(selectorMessage(selector, 'nested parentheses are not allowed'));
    } else if (c === ')') {
      depth--;
      if (depth < 0) throw new SelectorError(selectorMessage(selector, 'unbalanced ")"'));
    } else if (c === ',' && depth === 0) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (depth !== 0) throw new SelectorError(selectorMessage(selector, 'unbalanced "("'));
  parts.push(text.slice(start));
  return parts;
}

const SET_EXPR = /^(\S+)\s+(in|notin)\s*(.*)$/;

function checkKey(key: string, selector: string): string {
  if (!isValidLabelKey(key)) {
    throw new SelectorError(selectorMessage(selector, `invalid label key "${key}"`));
  }
  return key;
}

function checkValue(value: string, key: string, selector: string): string {
  if (value === '') throw new SelectorError(selectorMessage(selector, `missing value for "${key}"`));
  if (!isValidLabelValue(value)) throw new SelectorError(selectorMessage(selector, `invalid value "${value}" for "${key}"`));
  return value;
}

function parseTerm(raw: string, selector: string): Requirement {
  const term = raw.trim();
  if (term === '') throw new SelectorError(selectorMessage(selector, 'empty expression (check for doubled or trailing commas)'));
  const set = SET_EXPR.exec(term);
  if (set) {
    const key = checkKey(set[1]!, selector);
    const op = set[2] as 'in' | 'notin';
    const rest = set[3]!.trim();
    if (!rest.startsWith('(') || !rest.endsWith(')')) {
      throw new SelectorError(selectorMessage(selector, 'expected values like (v1,v2)'));
    }
    const inner = rest.slice(1, -1);
    if (inner.trim() === '') throw new SelectorError(selectorMessage(selector, `"${key} ${op}" needs at least one value, like (v1,v2)`));
    const values = inner.split(',').map((v) => checkValue(v.trim(), key, selector));
    return { op, key, values };
  }
  if (term.startsWith('!')) {
    const key = term.slice(1).trim();
    if (key.includes('=')) throw new SelectorError(selectorMessage(selector, `"!" takes a bare key, e.g. !deprecated`));
    return { op: 'notExists', key: checkKey(key, selector) };
  }
  const neq = term.indexOf('!=');
  if (neq >= 0) {
    const key = checkKey(term.slice(0, neq).trim(), selector);
    return { op: 'neq', key, value: checkValue(term.slice(neq + 2).trim(), key, selector) };
  }
  const eq = term.indexOf('=');
  if (eq >= 0) {
    const key = checkKey(term.slice(0, eq).trim(), selector);
    // Kubernetes also writes equality as "==".
    const value = term.slice(eq + 1).replace(/^=/, '').trim();
    if (value.includes('=')) throw new SelectorError(selectorMessage(selector, `unexpected "=" in the value of "${key}"`));
    return { op: 'eq', key, value: checkValue(value, key, selector) };
  }
  if (/[\s()]/.test(term)) {
    throw new SelectorError(selectorMessage(selector, `cannot parse "${term}"`));
  }
  return { op: 'exists', key: checkKey(term, selector) };
}

/** Parses one `selector` parameter; top-level commas separate requirements (AND). */
export function parseSelector(selector: string): Requirement[] {
  if (selector.trim() === '') throw new SelectorError(selectorMessage(selector, 'empty selector'));
  return splitTopLevel(selector, selector).map((t) => parseTerm(t, selector));
}

/** Legacy `label=key=value` parameter: one equality requirement. */
export function parseLegacyLabel(label: string): Requirement {
  const eq = label.indexOf('=');
  if (eq <= 0) {
    throw new SelectorError(
      `invalid label "${label}": expected key=value, e.g. label=color=gray (repeat the parameter for more labels; or use ${SELECTOR_VALID_EXAMPLE})`,
    );
  }
  const key = label.slice(0, eq);
  const value = label.slice(eq + 1);
  if (!isValidLabelKey(key) || !isValidLabelValue(value) || value === '') {
    throw new SelectorError(`invalid label "${label}": expected key=value, e.g. label=color=gray`);
  }
  return { op: 'eq', key, value };
}

export function matches(labels: Record<string, string>, reqs: readonly Requirement[]): boolean {
  for (const r of reqs) {
    const has = Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels[r.key] : undefined;
    switch (r.op) {
      case 'exists':
        if (!has) return false;
        break;
      case 'notExists':
        if (has) return false;
        break;
      case 'eq':
        if (v !== r.value) return false;
        break;
      case 'neq':
        // As in Kubernetes: a missing key satisfies "!=".
        if (v === r.value) return false;
        break;
      case 'in':
        if (v === undefined || !r.values.includes(v)) return false;
        break;
      case 'notin':
        if (v !== undefined && r.values.includes(v)) return false;
        break;
    }
  }
  return true;
}
