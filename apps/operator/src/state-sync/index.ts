export { StateSyncReconciler, type StateSyncReconcilerOptions } from './state-sync-reconciler.ts';
export type { StateSyncBackend, StateSyncTarget, WriteSyncStatus } from './state-sync-backend.ts';
export { readReplica } from './read-replica.ts';
export { renderSettings, ROUTER_SYNCABLES, type SyncSettings } from './render-settings.ts';
export { buildSyncStatus, replicaRows } from './replica-status.ts';
