/**
 * `--store-url`: keyspace declarations from the resource store. Every Function with `spec.state`
 * declares `<namespace>/<effectiveKeyspace>` with its effective quotas; the table follows the
 * store through list + watch, so a new or edited function is enforced within moments.
 */
import { effectiveKeyspace, type OrreryFunction, type Resource } from '@orrery/spec';
import { keyspaceDeclaration, keyspaceId, type KeyspaceDeclaration, type KeyspaceTable } from './keyspaces.ts';
import { type ResourceStore, mirrorStore } from '@orrery/store';

/**
 * Functions → declarations. Several functions may share a keyspace; the first by name (a stable,
 * documented choice) sets its quotas, so the result never depends on event order.
 */
export function keyspacesFromFunctions(functions: Iterable<Resource>): KeyspaceTable {
  const stateful = [...functions]
    .filter((r): r is OrreryFunction => r.kind === 'Function' && !!r.spec.state)
    .sort((a, b) => a.metadata.namespace.localeCompare(b.metadata.namespace) || a.metadata.name.localeCompare(b.metadata.name));
  const table = new Map<string, KeyspaceDeclaration>();
  for (const fn of stateful) {
    const state = fn.spec.state!;
    const keyspace = effectiveKeyspace(fn.metadata.name, state);
    const id = keyspaceId(fn.metadata.namespace, keyspace);
    if (table.has(id)) continue;
    table.set(id, keyspaceDeclaration(fn.metadata.namespace, keyspace, state));
  }
  return table;
}

/** File declarations win over the store's for the same keyspace (an operator's explicit override). */
export function mergeKeyspaces(file: KeyspaceTable, store: KeyspaceTable): KeyspaceTable {
  if (store.size === 0) return file;
  if (file.size === 0) return store;
  return new Map([...store, ...file]);
}

export interface StoreKeyspaceSource {
  ready: Promise<void>;
  stop(): void;
}

export function watchStoreKeyspaces(store: ResourceStore, onTable: (t: KeyspaceTable) => void, onError: (err: unknown) => void): StoreKeyspaceSource {
  const mirror = mirrorStore({
    store,
    kinds: ['Function'],
    onChange: (objects) => onTable(keyspacesFromFunctions(objects.get('Function')?.values() ?? [])),
    onError,
  });
  return mirror;
}
