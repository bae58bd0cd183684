export { StateSyncReconciler, readReplica, type StateSyncReconcilerOptions } from './state-sync-reconciler.ts';
export { LocalRouterFleet, ROUTER_BIN, type ReplicaSet, type RouterReplica, type LocalRouterFleetOptions } from './local-router-fleet.ts';
export { ObservedReplicaSet } from './observed-replica-set.ts';
export { renderSettings, ROUTER_SYNCABLES, type SyncSettings } from './render-settings.ts';
export { buildSyncStatus, replicaRows } from './replica-status.ts';
