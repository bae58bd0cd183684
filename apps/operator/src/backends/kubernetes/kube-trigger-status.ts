/**
 * Trigger status on Kubernetes (trigger/trigger-status-store.ts): a server-side apply of
 * `status.triggers.<kind>` alone through the status subresource, as the kind's own field manager
 * (TRIGGER_FIELD_MANAGERS), with the read resourceVersion as a precondition. The Function
 * reconciler applies the rest of the status as `orrery-operator` and never names this field, so
 * neither write removes the other's.
 */
import { FunctionSchema, GROUP_VERSION, type OrreryFunction } from '@orrery/spec';
import { TRIGGER_FIELD_MANAGERS, type TriggerKind, type TriggerStatusEntries, type TriggerStatusStore, type TriggerStatusWrite } from '../../trigger/trigger-status-store.ts';
import { type KubeClient, isConflict, isNotFound } from './kube-client.ts';
import { parsed } from './parsed-object.ts';

export class KubeTriggerStatus implements TriggerStatusStore {
  constructor(private readonly client: KubeClient) {}

  async read(namespace: string, name: string): Promise<OrreryFunction | undefined> {
    return parsed<OrreryFunction>(FunctionSchema, await this.client.get(GROUP_VERSION, 'Function', namespace, name));
  }

  async write<K extends TriggerKind>(fn: OrreryFunction, kind: K, entries: TriggerStatusEntries<K>): Promise<TriggerStatusWrite> {
    const { namespace, name, resourceVersion } = fn.metadata;
    try {
      await this.client.applyStatus('Function', namespace, name, { triggers: { [kind]: entries } }, { resourceVersion, fieldManager: TRIGGER_FIELD_MANAGERS[kind] });
      return 'written';
    } catch (err) {
      if (isConflict(err)) return 'conflict';
      if (isNotFound(err)) return 'gone';
      throw err;
    }
  }
}
