/**
 * Trigger status on the local backend (trigger/trigger-status-store.ts): the resource store, whose
 * status writes replace the whole status, so each write carries the stored status with only
 * `status.triggers.<kind>` changed, conditional on the resourceVersion it was read at.
 */
import type { OrreryFunction } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import type { TriggerKind, TriggerStatusEntries, TriggerStatusStore, TriggerStatusWrite } from '../../trigger/trigger-status-store.ts';
import { readStoredFunction, writeFunctionStatusIfUnchanged } from './local-function-status-write.ts';

export class LocalTriggerStatus implements TriggerStatusStore {
  constructor(private readonly store: ResourceStore) {}

  read(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    return readStoredFunction(this.store, namespace, name);
  }

  write<K extends TriggerKind>(fn: OrreryFunction, kind: K, entries: TriggerStatusEntries<K>): Promise<TriggerStatusWrite> {
    return writeFunctionStatusIfUnchanged(this.store, fn, { ...fn.status, triggers: { ...fn.status?.triggers, [kind]: entries } });
  }
}
