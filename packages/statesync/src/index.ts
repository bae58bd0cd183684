export * from './syncable.ts';
export { createStateSync, type StateSync, type StateSyncStatus, type SyncableStatus, type CycleOutcome } from './state-sync.ts';
export {
  STATESYNC_DEFAULTS,
  SYNC_PERIOD_ENV,
  resolveOptions,
  type StateSyncOptions,
  type ResolvedStateSyncOptions,
  type StateSyncLogger,
  type StateSyncTimers,
} from './options.ts';
export { entityKey, entityKeyStem, namespaceScanPattern, namespaceProblem } from './keys.ts';
export { initialDelayMs, jitterMs, nextBackoffMs, waitBeforeNextCycleMs, JITTER_FRACTION } from './schedule.ts';
export { pullNamespace, type PullResult, type PullSettings } from './pull.ts';
export { pushNamespace, writeChunked, type PushResult, type PushSettings, type WriteOp } from './push.ts';
export type { RedisHandle } from './redis-handle.ts';
export { OpTimeoutError, withDeadline, type OpDeadline } from './deadline.ts';
export { resolveSyncPeriod, type ResolvedSyncPeriod, type SyncPeriodSource } from './sync-period.ts';
export { MergeTable, type MergeRules } from './merge-table.ts';
