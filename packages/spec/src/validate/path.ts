import type { Segment } from './types.ts';

const IDENT = /^[A-Za-z_$][\w$-]*$/;

/** `['spec','traffic',1,'percent']` → `spec.traffic[1].percent`; odd keys are quoted: `labels["a.b/c"]`. */
export function formatPath(segments: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of segments) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else if (typeof seg === 'string' && IDENT.test(seg)) out += out ? `.${seg}` : seg;
    else out += `[${JSON.stringify(String(seg))}]`;
  }
  return out;
}

const TOKEN = /\.?([A-Za-z_$][\w$-]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/y;

/** Inverse of formatPath. */
export function parsePath(path: string): Segment[] {
  const out: Segment[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < path.length) {
    const m = TOKEN.exec(path);
    if (!m) break;
    if (m[1] !== undefined) out.push(m[1]);
    else if (m[2] !== undefined) out.push(Number(m[2]));
    else out.push(JSON.parse(m[3]!) as string);
  }
  return out;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The raw value at a path, or undefined when any step is missing. */
export function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let cur: unknown = root;
  for (const seg of segments) {
    if (Array.isArray(cur) && typeof seg === 'number') cur = cur[seg];
    else if (isRecord(cur) && typeof seg === 'string') cur = cur[seg];
    else return undefined;
  }
  return cur;
}
