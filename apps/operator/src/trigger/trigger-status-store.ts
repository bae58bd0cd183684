/**
 * Where each trigger kind keeps its part of a Function's status (`status.triggers.cron`,
 * `status.triggers.queue`): one seam, implemented by backends/local/local-trigger-status.ts (the
 * resource store) and backends/kubernetes/kube-trigger-status.ts (the status subresource, a
 * field manager per kind).
 *
 * The rules that keep a trigger's record true (docs/triggers.md):
 * - every write is conditional on the resourceVersion the trigger read: two writers (two
 *   operator replicas in a failover, a write racing the Function reconciler) cannot both win,
 *   and the loser reads again. A cron tick is claimed this way before it runs, which is what
 *   makes it run at most once;
 * - the Function reconciler never writes `status.triggers`: on Kubernetes its apply leaves the
 *   field out (kube-function-backend.ts), locally its conditional write keeps the stored one
 *   (local-function-backend.ts). So a status computed from an older copy never rolls a record back.
 */
import type { OrreryFunction, TriggersStatus } from '@orrery/spec';

export type TriggerKind = keyof TriggersStatus;
export type TriggerStatusEntries<K extends TriggerKind> = NonNullable<TriggersStatus[K]>;

/** `conflict`: someone wrote the Function since it was read (read again, decide again). */
export type TriggerStatusWrite = 'written' | 'conflict' | 'gone';

export interface TriggerStatusStore {
  /** The Function as stored now (never a cache), defaults applied; undefined when gone or unreadable. */
  read(namespace: string, name: string): Promise<OrreryFunction | undefined>;
  /**
   * Replaces `status.triggers.<kind>` with `entries`, only if the Function still has
   * `fn.metadata.resourceVersion`; the rest of the status is left as it is.
   */
  write<K extends TriggerKind>(fn: OrreryFunction, kind: K, entries: TriggerStatusEntries<K>): Promise<TriggerStatusWrite>;
}

/** The field manager that owns each kind's list on Kubernetes (the reconciler's is `orrery-operator`). */
export const TRIGGER_FIELD_MANAGERS: Record<TriggerKind, string> = {
  cron: 'orrery-cron-trigger',
  queue: 'orrery-queue-trigger',
};

/**
 * Read-modify-write of one kind's entries: `change` gets the stored entries (and the Function)
 * and returns the new ones, or undefined for "nothing to write"; a conflict reads again, up to
 * `attempts` times. Resolves to the outcome of the last attempt (`conflict` when every one lost).
 */
export async function updateTriggerStatus<K extends TriggerKind>(
  store: TriggerStatusStore,
  namespace: string,
  name: string,
  kind: K,
  change: (entries: TriggerStatusEntries<K>, fn: OrreryFunction) => TriggerStatusEntries<K> | undefined,
  attempts = 5,
): Promise<TriggerStatusWrite | 'unchanged'> {
  for (let attempt = 1; ; attempt++) {
    const fn = await store.read(namespace, name);
    if (!fn) return 'gone';
    const current = (fn.status?.triggers?.[kind] ?? []) as TriggerStatusEntries<K>;
    const next = change(structuredClone(current), fn);
    if (next === undefined) return 'unchanged';
    const outcome = await store.write(fn, kind, next);
    if (outcome !== 'conflict' || attempt >= attempts) return outcome;
  }
}
