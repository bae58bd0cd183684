/** One RFC 6902 operation; the webhook only ever adds. */
export interface AddOperation {
  op: 'add';
  path: string;
  value: unknown;
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** RFC 6901 escaping of one path segment. */
export const escapePointer = (segment: string | number): string => String(segment).replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * The `add` operations that turn `original` into `defaulted`, ignoring everything else. A
 * defaulting webhook must only fill in what is missing: parsing also drops fields the schema does
 * not know (server-owned metadata such as managedFields), and those must never be removed.
 * Arrays are matched element by element when both have the same length (defaults inside list
 * items, e.g. `spec.traffic[].percent`); otherwise they are left alone.
 */
export function defaultsPatch(original: unknown, defaulted: unknown, path = ''): AddOperation[] {
  const ops: AddOperation[] = [];
  if (isObj(original) && isObj(defaulted)) {
    for (const [k, v] of Object.entries(defaulted)) {
      const p = `${path}/${escapePointer(k)}`;
      if (!(k in original) || original[k] === undefined) {
        if (v !== undefined) ops.push({ op: 'add', path: p, value: v });
      } else {
        ops.push(...defaultsPatch(original[k], v, p));
      }
    }
  } else if (Array.isArray(original) && Array.isArray(defaulted) && original.length === defaulted.length) {
    original.forEach((item, i) => ops.push(...defaultsPatch(item, defaulted[i], `${path}/${i}`)));
  }
  return ops;
}

/** Applies add operations (for tests and for the CLI's dry runs). */
export function applyAdds<T>(doc: T, ops: readonly AddOperation[]): T {
  const out = structuredClone(doc) as unknown;
  for (const op of ops) {
    const parts = op.path.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    let cur = out as Record<string, unknown> | unknown[];
    for (const p of parts.slice(0, -1)) cur = (cur as Record<string, unknown>)[p] as Record<string, unknown>;
    (cur as Record<string, unknown>)[parts.at(-1)!] = structuredClone(op.value);
  }
  return out as T;
}
