/**
 * Trigger status on the local backend (trigger/trigger-status-store.ts): the resource store, whose
 * status writes replace the whole status, so each write carries the stored status with only
 * `status.triggers.<kind>` changed, conditional on the resourceVersion it was read at.
 */
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { type ResourceStore, StoreError } from '@orrery/store';
import type { TriggerKind, TriggerStatusEntries, TriggerStatusStore, TriggerStatusWrite } from '../../trigger/trigger-status-store.ts';

export class LocalTriggerStatus implements TriggerStatusStore {
  constructor(private readonly store: ResourceStore) {}

  async read(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    const raw = await this.store.get('Function', namespace, name);
    const r = raw && FunctionSchema.safeParse(raw);
    return r && r.success ? r.data : undefined;
  }

  async write<K extends TriggerKind>(fn: OrreryFunction, kind: K, entries: TriggerStatusEntries<K>): Promise<TriggerStatusWrite> {
    const { namespace, name, resourceVersion } = fn.metadata;
    const status = { ...fn.status, triggers: { ...fn.status?.triggers, [kind]: entries } };
    try {
      await this.store.updateStatus('Function', namespace, name, status, { resourceVersion });
      return 'written';
    } catch (err) {
      if (err instanceof StoreError && err.code === 'conflict') return 'conflict';
      if (err instanceof StoreError && err.code === 'not_found') return 'gone';
      throw err;
    }
  }
}
