/**
 * Functions on the local backend (function/function-backend.ts): reads come from the operator's
 * informer cache (local-object-cache.ts) once it has listed the kind, else from the resource store;
 * a miss that would delete something, and a keyspace's owner, are confirmed by fresh store reads.
 * Writes go to the store and into the cache. The store has no finalizers, and a Function's
 * Revisions are deleted with it.
 */
import { FUNCTION_LABEL, type Environment, type FunctionStatus, type OrreryFunction, type Revision, type RevisionInput } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';
import type { FunctionBackend, FunctionRead } from '../../function/function-backend.ts';
import { withBuildGate } from '../../package/build-gate.ts';
import type { ReadyOverride } from '../../revision/revision-backend.ts';
import type { LocalObjectCache } from './local-object-cache.ts';

export class LocalFunctionBackend implements FunctionBackend {
  constructor(
    private readonly store: ResourceStore,
    /** Why the Function's current package keeps it from Ready (package builds), if it does; by namespace/name. */
    private readonly buildGate?: (key: string) => ReadyOverride | undefined,
    private readonly now: () => Date = () => new Date(),
    /** Absent: every read goes to the store. */
    private readonly cache?: LocalObjectCache,
  ) {}

  /** A cache miss is read again from the store: the reconciler deletes the revisions of a Function it cannot read. */
  async read(namespace: string, name: string): Promise<FunctionRead | undefined> {
    const fn = (await this.cachedFunction(namespace, name)) ?? ((await this.store.get('Function', namespace, name)) as OrreryFunction | undefined);
    return fn && { fn, stored: fn };
  }

  /** The Function from the cache, or undefined when it is not there (or the cache has not listed Functions yet). */
  private async cachedFunction(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    return this.cache?.listed('Function') ? this.cache.get<OrreryFunction>('Function', namespace, name) : undefined;
  }

  async gone(namespace: string, name: string): Promise<void> {
    // Revisions belong to their function: delete them with it (listed fresh: none may be left behind).
    const { items } = await this.store.list('Revision', { namespace, labels: { [FUNCTION_LABEL]: name } });
    for (const r of items) await this.deleteRevision(namespace, r.metadata.name);
  }

  async revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    if (this.cache?.listed('Revision')) return this.cache.list<Revision>('Revision', namespace, { [FUNCTION_LABEL]: fn });
    const { items } = await this.store.list('Revision', { namespace, labels: { [FUNCTION_LABEL]: fn } });
    return items as Revision[];
  }

  /** A missing Environment only blocks a revision; its creation's event reconciles the Functions naming it. */
  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    if (this.cache?.listed('Environment')) return this.cache.get<Environment>('Environment', namespace, name);
    return (await this.store.get('Environment', namespace, name)) as Environment | undefined;
  }

  async functions(namespace: string): Promise<readonly unknown[]> {
    if (this.cache?.listed('Function')) return this.cache.list('Function', namespace);
    return (await this.store.list('Function', { namespace })).items;
  }

  /** Fresh: a keyspace's owner is never decided on a cache that may not show one admitted meanwhile. */
  async liveFunctions(namespace: string): Promise<readonly unknown[]> {
    return (await this.store.list('Function', { namespace })).items;
  }

  async createRevision(rev: RevisionInput): Promise<Revision> {
    const created = (await this.store.apply(rev, { allowCreateOnlyKinds: true })) as Revision;
    this.cache?.wrote('Revision', created);
    return created;
  }

  /** The Revision's watch event makes the local operator stop its workers (reconcileRevision: gone → scale 0). */
  async deleteRevision(namespace: string, name: string): Promise<void> {
    await this.store.delete('Revision', namespace, name);
    this.cache?.removed('Revision', namespace, name);
  }

  /**
   * The store replaces the whole status, and `status.triggers` is the triggers' record
   * (trigger/trigger-status-store.ts): the write keeps the stored one and is conditional on the
   * version it was taken from, so a trigger's write in between is never rolled back.
   */
  /** A Function whose package is not built is not Ready: Building or BuildFailed (package/build-gate.ts). */
  settle(key: string, status: FunctionStatus): FunctionStatus {
    return withBuildGate(status, this.buildGate?.(key), this.now());
  }

  async writeStatus(fn: OrreryFunction, status: FunctionStatus): Promise<FunctionStatus | undefined> {
    const { namespace, name } = fn.metadata;
    let stored: OrreryFunction | undefined = fn;
    for (let attempt = 1; stored; attempt++) {
      // status.build is the package builds' record (package/build-status-store.ts), kept like the triggers'.
      const { triggers: _computed, build: _computedBuild, ...own } = status;
      const triggers = stored.status?.triggers;
      const build = stored.status?.build;
      const next = { ...own, ...(triggers ? { triggers } : {}), ...(build ? { build } : {}) };
      try {
        const written = await this.store.updateStatus('Function', namespace, name, next, { resourceVersion: stored.metadata.resourceVersion });
        this.cache?.wrote('Function', written);
        break;
      } catch (err) {
        if (!(err instanceof StoreError && err.code === 'conflict') || attempt >= 5) throw err;
        stored = (await this.store.get('Function', namespace, name)) as OrreryFunction | undefined;
      }
    }
    return fn.status;
  }
}
