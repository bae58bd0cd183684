import type { Environment, OrreryFunction, Resource, ResourceKind, Revision } from '@orrery/spec';
import { type MirroredObjects, type ResourceStore, mirrorStore } from '@orrery/store';

/**
 * What the executor reads on a cold request — the Revision, its Function (state credentials) and
 * the Environment (pool size) — from an in-memory mirror of the store (list + watch) instead of
 * store reads: those are database queries on the operator's thread, on the cold request's path.
 * A miss (the mirror has not heard of an object the router already routes to) reads the store.
 */
export interface ExecutorView {
  revision(namespace: string, name: string): Promise<Revision | undefined>;
  fn(namespace: string, name: string): Promise<OrreryFunction | undefined>;
  environment(namespace: string, name: string): Promise<Environment | undefined>;
  stop(): void;
}

const KINDS: ResourceKind[] = ['Revision', 'Function', 'Environment'];

export function createExecutorView(store: ResourceStore, onError: (err: unknown) => void = () => {}): ExecutorView {
  let objects: MirroredObjects | undefined;
  // onChange hands the mirror's live maps; holding them is enough to see every later event.
  const mirror = mirrorStore({ store, kinds: KINDS, onChange: (o) => (objects = o), onError, debounceMs: 0 });
  const read = async <T extends Resource>(kind: ResourceKind, namespace: string, name: string): Promise<T | undefined> => {
    const hit = objects?.get(kind)?.get(`${namespace}/${name}`);
    return (hit ?? (await store.get(kind, namespace, name))) as T | undefined;
  };
  return {
    revision: (ns, name) => read<Revision>('Revision', ns, name),
    fn: (ns, name) => read<OrreryFunction>('Function', ns, name),
    environment: (ns, name) => read<Environment>('Environment', ns, name),
    stop: () => mirror.stop(),
  };
}
