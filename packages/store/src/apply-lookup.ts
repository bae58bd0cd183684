import { type KeyspaceClaim, type ValidationLookup, claimOf, declaredKeyspace, environmentOf } from '@orrery/spec';

/** What the Function rules that read other objects need from a store, read the store's own way. */
export interface ApplyReads {
  /** The Environment a Function names (undefined when missing). */
  getEnvironment(namespace: string, name: string): Promise<unknown>;
  /** Every Function of one namespace, as stored. */
  listFunctions(namespace: string): Promise<readonly unknown[]>;
  /** The object as stored before this write (undefined = a create). */
  getPrevious(): Promise<unknown>;
}

/**
 * The claims of the Functions among `functions` that declare `keyspace` in `namespace` (the
 * `keyspaceHolders` answer of a ValidationLookup): the stores' and the admission webhook's.
 */
export function keyspaceHoldersAmong(functions: Iterable<unknown>, namespace: string, keyspace: string): KeyspaceClaim[] {
  const holders: KeyspaceClaim[] = [];
  for (const f of functions) {
    const theirs = declaredKeyspace(f);
    const claim = claimOf(f);
    if (theirs && claim && theirs.namespace === namespace && theirs.keyspace === keyspace) holders.push(claim);
  }
  return holders;
}

/**
 * The lookup `validate()` needs to judge a Function for apply: the Environment it names, the
 * Functions of its namespace that already declare its keyspace (one Function per keyspace), and
 * the stored object (an update that keeps its keyspace is not a new declaration). Other kinds
 * need none. The same for every ResourceStore, so both refuse with the same code and words.
 */
export async function applyLookupFor(obj: unknown, reads: ApplyReads): Promise<ValidationLookup | undefined> {
  const o = obj as { kind?: string; metadata?: { namespace?: string }; spec?: { template?: { environment?: string } } };
  if (o?.kind !== 'Function') return undefined;
  const ns = o.metadata?.namespace ?? 'default';
  const envName = o.spec?.template?.environment ?? 'nodejs';
  const declared = declaredKeyspace({ ...(obj as object), metadata: { ...o.metadata, namespace: ns } });
  // One after the other: the local store reads inside one transaction.
  const found = await reads.getEnvironment(ns, envName);
  const functions = declared ? await reads.listFunctions(ns) : [];
  const previous = declared ? await reads.getPrevious() : undefined;
  const environment = found ? environmentOf(found) : undefined;
  const holders = declared ? keyspaceHoldersAmong(functions, declared.namespace, declared.keyspace) : [];
  return {
    environment: (n: string, name: string) => (n === ns && name === envName ? environment : undefined),
    keyspaceHolders: (n: string, keyspace: string) => (declared && n === declared.namespace && keyspace === declared.keyspace ? holders : []),
    previous,
  };
}
