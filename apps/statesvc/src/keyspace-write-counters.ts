import { keyspaceId } from './keyspaces.ts';

/** One keyspace's counts on this replica (GET /v1/admin/keyspace-writes). */
export interface WriteCounts {
  replayed: number;
  mismatched: number;
  claimed: number;
  refused: number;
}

export type WriteCountKind = keyof WriteCounts;

/**
 * Per-keyspace counts of idempotent replays, idempotency mismatches, fence claims and fenced
 * refusals since this replica started. Only declared keyspaces reach the counting points (the
 * request's scope passed `declaration()` first), so the map is bounded by the declarations;
 * a keyspace undeclared later keeps its few numbers until the process restarts.
 */
export class KeyspaceWriteCounters {
  readonly since = Date.now();
  private readonly counts = new Map<string, WriteCounts>();

  count(namespace: string, keyspace: string, kind: WriteCountKind): void {
    const id = keyspaceId(namespace, keyspace);
    let c = this.counts.get(id);
    if (!c) this.counts.set(id, (c = { replayed: 0, mismatched: 0, claimed: 0, refused: 0 }));
    c[kind]++;
  }

  of(namespace: string, keyspace: string): WriteCounts {
    return { ...(this.counts.get(keyspaceId(namespace, keyspace)) ?? { replayed: 0, mismatched: 0, claimed: 0, refused: 0 }) };
  }
}
