/**
 * The keyspace whose history the namespace page shows: the one named in `?keyspace=` when the
 * namespace has it, else the first. A link to a keyspace that is gone (or not yet written) says
 * so instead of silently showing another one.
 */
export function chosenKeyspace(param: string | null, keyspaces: readonly string[]): { keyspace: string | undefined; missing?: string } {
  if (param && keyspaces.includes(param)) return { keyspace: param };
  return { keyspace: keyspaces[0], ...(param ? { missing: param } : {}) };
}
