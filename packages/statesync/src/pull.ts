import type { OpDeadline } from './deadline.ts';
import { entityKeyStem, namespaceScanPattern } from './keys.ts';
import type { StateSyncLogger } from './options.ts';
import { scanTargets, type RedisHandle } from './redis-handle.ts';
import { hasStalePolicy, hasTombstones, type Syncable } from './syncable.ts';

export interface PullSettings {
  keyPrefix: string;
  scanCount: number;
  mgetBatchSize: number;
  logger: StateSyncLogger;
  deadline?: OpDeadline;
}

export interface PullResult {
  /** Records read from Redis (every non-expired key of the namespace). */
  read: number;
  applied: number;
  tombstones: number;
  staleDeleted: number;
  applyErrors: number;
}

/**
 * Pull one namespace: SCAN MATCH its keys (COUNT hint), MGET them in batches; a tombstone deletes
 * locally, a stale record is DELeted from Redis and skipped, anything else goes to applyRemote —
 * whose failure is logged and skipped so one bad record cannot stall the table.
 */
export async function pullNamespace(redis: RedisHandle, syncable: Syncable, s: PullSettings): Promise<PullResult> {
  const result: PullResult = { read: 0, applied: 0, tombstones: 0, staleDeleted: 0, applyErrors: 0 };
  const stem = entityKeyStem(s.keyPrefix, syncable.namespace);
  const pattern = namespaceScanPattern(s.keyPrefix, syncable.namespace);
  const seen = new Set<string>(); // SCAN may return a key twice
  let batch: string[] = [];

  const flush = async (): Promise<void> => {
    if (batch.length === 0) return;
    const keys = batch;
    batch = [];
    s.deadline?.check();
    const values = await redis.mgetBuffer(keys);
    const stale: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const value = values[i];
      if (value === null || value === undefined) continue; // expired between SCAN and MGET
      result.read++;
      const key = keys[i]!;
      const id = key.slice(stem.length);
      if (hasTombstones(syncable) && syncable.isTombstone(value)) {
        await syncable.deleteLocal(id, value);
        result.tombstones++;
        continue;
      }
      if (hasStalePolicy(syncable) && syncable.isStale(id, value)) {
        stale.push(key);
        continue;
      }
      try {
        await syncable.applyRemote(id, value);
        result.applied++;
      } catch (err) {
        result.applyErrors++;
        s.logger.warn('statesync: applyRemote failed; skipping record', {
          namespace: syncable.namespace,
          id,
          error: err instanceof Error ? err.message : String(err),
        });
      }
    }
    if (stale.length > 0) {
      s.deadline?.check();
      await redis.del(stale);
      result.staleDeleted += stale.length;
    }
  };

  for (const node of scanTargets(redis)) {
    let cursor = '0';
    do {
      s.deadline?.check();
      const [next, keys] = await node.scan(cursor, 'MATCH', pattern, 'COUNT', s.scanCount);
      cursor = next;
      for (const key of keys) {
        if (seen.has(key)) continue;
        seen.add(key);
        batch.push(key);
        if (batch.length >= s.mgetBatchSize) await flush();
      }
    } while (cursor !== '0');
  }
  await flush();
  return result;
}
