/**
 * Teleport detection (RFC-0023 §6): per sticky function 256 buckets keyed by the low byte of
 * FNV-1a-64(key), each remembering the last admitted address; admitting the same bucket to a
 * different address is a teleport. The table itself is the statesync-shared StickyOwnerTable
 * (tables/sticky-owner-table.ts); this is the slice of it the data plane uses.
 */

export const TELEPORT_BUCKETS = 256;

export function teleportBucket(keyHashLo: number): number {
  return keyHashLo & (TELEPORT_BUCKETS - 1);
}

export interface StickyOwnerRecorder {
  record(functionKey: string, bucket: number, address: string, atMs: number): { teleportedFrom?: string };
}
