import type { OpDeadline } from './deadline.ts';
import { entityKey } from './keys.ts';
import type { StateSyncLogger } from './options.ts';
import { asBuffer, throwOnPipelineError, type RedisHandle } from './redis-handle.ts';
import { hasTombstones, isDeltaSyncable, type Syncable } from './syncable.ts';

export interface PushSettings {
  keyPrefix: string;
  recordTtlSeconds: number;
  setexChunkSize: number;
  warnSnapshotEntries: number;
  warnAverageEntryBytes: number;
  logger: StateSyncLogger;
  deadline?: OpDeadline;
}

export interface PushResult {
  mode: 'delta' | 'full';
  upserts: number;
  deletes: number;
}

export type WriteOp = { kind: 'setex'; key: string; bytes: Uint8Array } | { kind: 'del'; key: string };

/** One pipeline (one round trip) per chunk; any failed command fails the whole write. */
export async function writeChunked(
  redis: RedisHandle,
  ops: WriteOp[],
  ttlSeconds: number,
  chunkSize: number,
  deadline?: OpDeadline,
): Promise<void> {
  for (let i = 0; i < ops.length; i += chunkSize) {
    deadline?.check();
    const pipeline = redis.pipeline();
    for (const op of ops.slice(i, i + chunkSize)) {
      if (op.kind === 'setex') pipeline.setex(op.key, ttlSeconds, asBuffer(op.bytes));
      else pipeline.del(op.key);
    }
    throwOnPipelineError(await pipeline.exec());
  }
}

/**
 * Push one namespace. A DeltaSyncable sends only what changed (deletes as tombstones when the table
 * supports them, else DEL) and is told to clear its dirty marks only after every chunk succeeded;
 * any other Syncable sends its full snapshot. Nothing to send means no Redis command at all.
 */
export async function pushNamespace(redis: RedisHandle, syncable: Syncable, s: PushSettings): Promise<PushResult> {
  const key = (id: string): string => entityKey(s.keyPrefix, syncable.namespace, id);
  if (isDeltaSyncable(syncable)) {
    const delta = await syncable.delta();
    const ops: WriteOp[] = [];
    for (const [id, bytes] of delta.upserts) ops.push({ kind: 'setex', key: key(id), bytes });
    for (const id of delta.deletes) {
      ops.push(hasTombstones(syncable) ? { kind: 'setex', key: key(id), bytes: syncable.makeTombstone(id) } : { kind: 'del', key: key(id) });
    }
    if (ops.length === 0) return { mode: 'delta', upserts: 0, deletes: 0 };
    await writeChunked(redis, ops, s.recordTtlSeconds, s.setexChunkSize, s.deadline);
    await syncable.clearDirty(delta);
    return { mode: 'delta', upserts: delta.upserts.size, deletes: delta.deletes.length };
  }

  const snapshot = await syncable.snapshot();
  if (snapshot.size === 0) return { mode: 'full', upserts: 0, deletes: 0 };
  let totalBytes = 0;
  const ops: WriteOp[] = [];
  for (const [id, bytes] of snapshot) {
    totalBytes += bytes.byteLength;
    ops.push({ kind: 'setex', key: key(id), bytes });
  }
  const average = totalBytes / snapshot.size;
  if (snapshot.size > s.warnSnapshotEntries || average > s.warnAverageEntryBytes) {
    s.logger.warn('statesync: large full snapshot; consider implementing DeltaSyncable', {
      namespace: syncable.namespace,
      entries: snapshot.size,
      averageBytes: Math.round(average),
    });
  }
  await writeChunked(redis, ops, s.recordTtlSeconds, s.setexChunkSize, s.deadline);
  return { mode: 'full', upserts: snapshot.size, deletes: 0 };
}
