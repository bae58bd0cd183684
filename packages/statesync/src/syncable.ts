/**
 * The contract between the sync manager and whoever owns a table (AIBrix statesync design).
 * The owner implements these; the manager never knows what the bytes mean.
 */

/** A table shared across replicas; entities are opaque bytes keyed by id. */
export interface Syncable {
  /** Non-empty; becomes the Redis hash tag `{namespace}` so one table lives on one shard. */
  readonly namespace: string;
  /** Every local entity to push (used when the table is not a DeltaSyncable). */
  snapshot(): Map<string, Uint8Array> | Promise<Map<string, Uint8Array>>;
  /** Merge one remote entity into local state; a throw is logged and the cycle goes on. */
  applyRemote(id: string, bytes: Uint8Array): void | Promise<void>;
}

/** What changed locally since the last successful push. */
export interface Delta {
  upserts: Map<string, Uint8Array>;
  deletes: string[];
}

/** Optional: push only what changed. `delta()` never clears; `clearDirty` runs after a successful push. */
export interface DeltaSyncable extends Syncable {
  delta(): Delta | Promise<Delta>;
  clearDirty(pushed: Delta): void | Promise<void>;
}

/** Optional: called around the pull phase only (not around push). */
export interface SyncHooks {
  onSyncStart(): void | Promise<void>;
  onSyncEnd(error?: unknown): void | Promise<void>;
}

/** Optional: a stale remote record is deleted from Redis and not applied. */
export interface StalePolicy {
  isStale(id: string, bytes: Uint8Array): boolean;
}

/** Optional: deletes travel as tombstone records instead of DEL, so other replicas learn of them. */
export interface TombstoneSupport {
  makeTombstone(id: string): Uint8Array;
  isTombstone(bytes: Uint8Array): boolean;
  /**
   * Remove the entity locally because a peer deleted it. The tombstone bytes are passed along so a
   * table can refuse a deletion older than its own newer local write (refinement of the AIBrix API).
   */
  deleteLocal(id: string, tombstone?: Uint8Array): void | Promise<void>;
}

export function isDeltaSyncable(s: Syncable): s is DeltaSyncable {
  return typeof (s as Partial<DeltaSyncable>).delta === 'function' && typeof (s as Partial<DeltaSyncable>).clearDirty === 'function';
}
export function hasHooks(s: Syncable): s is Syncable & SyncHooks {
  return typeof (s as Partial<SyncHooks>).onSyncStart === 'function' && typeof (s as Partial<SyncHooks>).onSyncEnd === 'function';
}
export function hasStalePolicy(s: Syncable): s is Syncable & StalePolicy {
  return typeof (s as Partial<StalePolicy>).isStale === 'function';
}
export function hasTombstones(s: Syncable): s is Syncable & TombstoneSupport {
  const t = s as Partial<TombstoneSupport>;
  return typeof t.makeTombstone === 'function' && typeof t.isTombstone === 'function' && typeof t.deleteLocal === 'function';
}
