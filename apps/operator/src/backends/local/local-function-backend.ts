/**
 * Functions on the local backend (function/function-backend.ts): every read goes to the resource
 * store, so it is fresh; the store has no finalizers, and a Function's Revisions are deleted with it.
 */
import { FUNCTION_LABEL, type Environment, type FunctionStatus, type OrreryFunction, type Revision, type RevisionInput } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';
import type { FunctionBackend, FunctionRead } from '../../function/function-backend.ts';
import { withBuildGate } from '../../package/build-gate.ts';
import type { ReadyOverride } from '../../revision/revision-backend.ts';

export class LocalFunctionBackend implements FunctionBackend {
  constructor(
    private readonly store: ResourceStore,
    /** Why the Function's current package keeps it from Ready (package builds), if it does; by namespace/name. */
    private readonly buildGate?: (key: string) => ReadyOverride | undefined,
    private readonly now: () => Date = () => new Date(),
  ) {}

  async read(namespace: string, name: string): Promise<FunctionRead | undefined> {
    const fn = (await this.store.get('Function', namespace, name)) as OrreryFunction | undefined;
    return fn && { fn, stored: fn };
  }

  async gone(namespace: string, name: string): Promise<void> {
    // Revisions belong to their function: delete them with it.
    for (const r of await this.revisionsOf(namespace, name)) await this.store.delete('Revision', namespace, r.metadata.name);
  }

  async revisionsOf(namespace: string, fn: string): Promise<Revision[]> {
    const { items } = await this.store.list('Revision', { namespace, labels: { [FUNCTION_LABEL]: fn } });
    return items as Revision[];
  }

  async environment(namespace: string, name: string): Promise<Environment | undefined> {
    return (await this.store.get('Environment', namespace, name)) as Environment | undefined;
  }

  async functions(namespace: string): Promise<readonly unknown[]> {
    return (await this.store.list('Function', { namespace })).items;
  }

  async createRevision(rev: RevisionInput): Promise<Revision> {
    return (await this.store.apply(rev, { allowCreateOnlyKinds: true })) as Revision;
  }

  /** The Revision's watch event makes the local operator stop its workers (reconcileRevision: gone → scale 0). */
  async deleteRevision(namespace: string, name: string): Promise<void> {
    await this.store.delete('Revision', namespace, name);
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
        await this.store.updateStatus('Function', namespace, name, next, { resourceVersion: stored.metadata.resourceVersion });
        break;
      } catch (err) {
        if (!(err instanceof StoreError && err.code === 'conflict') || attempt >= 5) throw err;
        stored = (await this.store.get('Function', namespace, name)) as OrreryFunction | undefined;
      }
    }
    return fn.status;
  }
}
