/**
 * Functions on the local backend (function/function-backend.ts): every read goes to the resource
 * store, so it is fresh; the store has no finalizers, and a Function's Revisions are deleted with it.
 */
import { FUNCTION_LABEL, type Environment, type FunctionStatus, type OrreryFunction, type Revision, type RevisionInput } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';
import type { FunctionBackend, FunctionRead } from '../../function/function-backend.ts';

export class LocalFunctionBackend implements FunctionBackend {
  constructor(private readonly store: ResourceStore) {}

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
  async writeStatus(fn: OrreryFunction, status: FunctionStatus): Promise<FunctionStatus | undefined> {
    const { namespace, name } = fn.metadata;
    let stored: OrreryFunction | undefined = fn;
    for (let attempt = 1; stored; attempt++) {
      const { triggers: _computed, ...own } = status;
      const triggers = stored.status?.triggers;
      try {
        await this.store.updateStatus('Function', namespace, name, triggers ? { ...own, triggers } : own, { resourceVersion: stored.metadata.resourceVersion });
        break;
      } catch (err) {
        if (!(err instanceof StoreError && err.code === 'conflict') || attempt >= 5) throw err;
        stored = (await this.store.get('Function', namespace, name)) as OrreryFunction | undefined;
      }
    }
    return fn.status;
  }
}
