import { declaredKeyspace } from '@orrery/spec';

const keyOf = (obj: unknown): string | undefined => {
  const m = (obj as { metadata?: { namespace?: unknown; name?: unknown } } | undefined)?.metadata;
  return typeof m?.name === 'string' ? `${typeof m.namespace === 'string' && m.namespace ? m.namespace : 'default'}/${m.name}` : undefined;
};

/**
 * The `namespace/name` keys of the Functions among `functions` that declare a keyspace one of
 * `changed` declares (the versions of one Function before and after an event, or a deleted one),
 * the changed Function itself left out. Whether such a Function owns its keyspace depends on the
 * changed one, so its reconciler runs again: a Function waiting for a keyspace proceeds when the
 * owner is deleted or moves to another keyspace.
 */
export function keyspaceNeighbours(changed: readonly unknown[], functions: Iterable<unknown>): string[] {
  const self = new Set(changed.map(keyOf).filter((k): k is string => k !== undefined));
  const wanted = new Set<string>();
  for (const c of changed) {
    const d = declaredKeyspace(c);
    if (d) wanted.add(`${d.namespace}\u0000${d.keyspace}`);
  }
  if (wanted.size === 0) return [];
  const out: string[] = [];
  for (const f of functions) {
    const d = declaredKeyspace(f);
    const key = keyOf(f);
    if (d && key && !self.has(key) && wanted.has(`${d.namespace}\u0000${d.keyspace}`)) out.push(key);
  }
  return out;
}
