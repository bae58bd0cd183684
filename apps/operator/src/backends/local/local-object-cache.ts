/**
 * The local operator's informer cache: the Functions, Revisions and Environments as its watches
 * and resyncs last delivered them, plus its own writes, the newest resourceVersion winning. The
 * reconcilers read here instead of querying the embedded store, whose statements run on the
 * operator's own thread (a burst of reconciles was thousands of them; docs/performance.md).
 *
 * As with a Kubernetes informer, a copy can lag the store: every change still reaches the
 * operator as a watch event, which updates the cache before it enqueues a reconcile, so each
 * reconcile sees at least the change that caused it, and a lagging read is corrected by the
 * next event. Callers confirm a miss with the store where acting on it would destroy something
 * (a Function's revisions deleted as "gone", a revision's workers stopped). Until a kind has
 * been listed once, `listed()` is false and callers read the store.
 */
import type { Resource } from '@orrery/spec';
import type { WatchEvent } from '@orrery/store';

export type CachedKind = 'Function' | 'Revision' | 'Environment';

const rvOf = (o: Resource): number => Number(o.metadata.resourceVersion ?? 0);
const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

export class LocalObjectCache {
  private readonly objects = new Map<CachedKind, Map<string, Resource>>();
  /** Deletions by watch event, by key: a list taken before one must not bring the object back. */
  private readonly tombstones = new Map<CachedKind, Map<string, number>>();
  private readonly listedKinds = new Set<CachedKind>();

  /** Whether the kind was listed once (before that the cache holds only some of its objects). */
  listed(kind: CachedKind): boolean {
    return this.listedKinds.has(kind);
  }

  /** A watch event: applied before the operator enqueues anything for it. */
  event(kind: CachedKind, e: WatchEvent): void {
    const o = e.object;
    const key = keyOf(o.metadata.namespace, o.metadata.name);
    if (e.type === 'deleted') {
      const cur = this.of(kind).get(key);
      if (!cur || rvOf(cur) <= e.resourceVersion) this.of(kind).delete(key);
      this.tombs(kind).set(key, e.resourceVersion);
      return;
    }
    this.keep(kind, o);
  }

  /** The answer of this process's own write (a created Revision, a status update). */
  wrote(kind: CachedKind, o: Resource): void {
    this.keep(kind, o);
  }

  /** This process deleted the object (its watch event follows; a resync cannot bring it back before that). */
  removed(kind: CachedKind, namespace: string, name: string): void {
    this.of(kind).delete(keyOf(namespace, name));
  }

  /**
   * A full list of the kind taken at store revision `listedAt`: objects newer in the cache stay,
   * objects the list lacks are dropped unless an event newer than the list brought them.
   */
  replace(kind: CachedKind, items: readonly Resource[], listedAt: number): void {
    const m = this.of(kind);
    const tombs = this.tombs(kind);
    const seen = new Set<string>();
    for (const o of items) {
      seen.add(keyOf(o.metadata.namespace, o.metadata.name));
      this.keep(kind, o);
    }
    for (const [key, cur] of m) if (!seen.has(key) && rvOf(cur) <= listedAt) m.delete(key);
    // Deletions the list already reflects need no tombstone any more.
    for (const [key, rv] of tombs) if (rv <= listedAt) tombs.delete(key);
    this.listedKinds.add(kind);
  }

  /** A copy of the cached object (callers may change what they get). */
  get<T extends Resource>(kind: CachedKind, namespace: string, name: string): T | undefined {
    const o = this.of(kind).get(keyOf(namespace, name));
    return o && (structuredClone(o) as T);
  }

  /** Copies of the kind's objects in a namespace whose labels include every given one. */
  list<T extends Resource>(kind: CachedKind, namespace: string, labels: Record<string, string> = {}): T[] {
    const want = Object.entries(labels);
    const out: T[] = [];
    for (const o of this.of(kind).values()) {
      if (o.metadata.namespace !== namespace) continue;
      if (want.some(([k, v]) => o.metadata.labels?.[k] !== v)) continue;
      out.push(structuredClone(o) as T);
    }
    return out;
  }

  /** The cached objects themselves, every namespace (read-only: for synchronous scans). */
  values(kind: CachedKind): IterableIterator<Resource> {
    return this.of(kind).values();
  }

  private keep(kind: CachedKind, o: Resource): void {
    const key = keyOf(o.metadata.namespace, o.metadata.name);
    const deletedAt = this.tombs(kind).get(key);
    if (deletedAt !== undefined && deletedAt >= rvOf(o)) return;
    const m = this.of(kind);
    const cur = m.get(key);
    if (!cur || rvOf(cur) <= rvOf(o)) m.set(key, o);
  }

  private of(kind: CachedKind): Map<string, Resource> {
    let m = this.objects.get(kind);
    if (!m) this.objects.set(kind, (m = new Map()));
    return m;
  }

  private tombs(kind: CachedKind): Map<string, number> {
    let m = this.tombstones.get(kind);
    if (!m) this.tombstones.set(kind, (m = new Map()));
    return m;
  }
}
