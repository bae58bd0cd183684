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

export interface ExecutorViewOptions {
  onError?: (err: unknown) => void;
  /** How long a store read that found nothing is believed (ms). */
  absentTtlMs?: number;
  now?: () => number;
}

const KINDS: ResourceKind[] = ['Revision', 'Function', 'Environment'];
/**
 * A Function that names no Environment runs in the implicit default one, which is no object:
 * every pool call for it missed the mirror and read the store (two reads per ensurePool, ~1 100
 * reads in a 40 s cold-start bench). A store miss is now believed this long; an object created
 * meanwhile is found in the mirror first, so this adds no staleness beyond the mirror's own.
 */
const ABSENT_TTL_MS = 1000;
/** Remembered misses at most (names come from routed revisions; a flood only clears the cache). */
const MAX_ABSENT = 1024;

export function createExecutorView(store: ResourceStore, o: ExecutorViewOptions = {}): ExecutorView {
  const now = o.now ?? Date.now;
  const ttl = o.absentTtlMs ?? ABSENT_TTL_MS;
  let objects: MirroredObjects | undefined;
  const absentUntil = new Map<string, number>();
  // onChange hands the mirror's live maps; holding them is enough to see every later event.
  const mirror = mirrorStore({ store, kinds: KINDS, onChange: (m) => (objects = m), onError: o.onError ?? (() => {}), debounceMs: 0 });
  const read = async <T extends Resource>(kind: ResourceKind, namespace: string, name: string): Promise<T | undefined> => {
    const hit = objects?.get(kind)?.get(`${namespace}/${name}`);
    if (hit) return hit as T;
    const key = `${kind}/${namespace}/${name}`;
    const until = absentUntil.get(key);
    if (until !== undefined && now() < until) return undefined;
    const got = (await store.get(kind, namespace, name)) as T | undefined;
    if (got) absentUntil.delete(key);
    else {
      if (absentUntil.size >= MAX_ABSENT) absentUntil.clear();
      absentUntil.set(key, now() + ttl);
    }
    return got;
  };
  return {
    revision: (ns, name) => read<Revision>('Revision', ns, name),
    fn: (ns, name) => read<OrreryFunction>('Function', ns, name),
    environment: (ns, name) => read<Environment>('Environment', ns, name),
    stop: () => mirror.stop(),
  };
}
