/**
 * StateSync status from what each replica's statesync manager reports (`status()`, served by the
 * router at GET <admin>/v1/stats under `statesync`). Pure.
 */
import type { Condition, StateSync } from '@orrery/spec';
import { setCondition } from '../reconcile/conditions.ts';
import { withProgress } from '../reconcile/kstatus-conditions.ts';

type Status = NonNullable<StateSync['status']>;
type ReplicaRow = NonNullable<Status['replicas']>[number];

/** The part of @orrery/statesync's StateSyncStatus this reads (kept structural: it crosses HTTP). */
export interface ReportedSyncStatus {
  syncables: Array<{
    syncable: string;
    lastSuccessfulCycle?: string;
    entitiesPulled: number;
    entitiesPushed: number;
    lastError?: string;
    backoffSeconds: number;
  }>;
}

export interface ReplicaReport {
  replica: string;
  /** undefined with `error` when the replica did not answer or runs without statesync. */
  status?: ReportedSyncStatus;
  error?: string;
}

export function replicaRows(reports: readonly ReplicaReport[]): ReplicaRow[] {
  const rows: ReplicaRow[] = [];
  for (const r of reports) {
    if (!r.status) {
      rows.push({ replica: r.replica, entitiesPushed: 0, entitiesPulled: 0, lastError: r.error ?? 'no statesync status', backoffSeconds: 0 });
      continue;
    }
    for (const s of r.status.syncables) {
      rows.push({
        replica: r.replica,
        syncable: s.syncable,
        lastSuccessfulCycle: s.lastSuccessfulCycle,
        entitiesPushed: s.entitiesPushed,
        entitiesPulled: s.entitiesPulled,
        lastError: s.lastError,
        backoffSeconds: s.backoffSeconds,
      });
    }
  }
  return rows;
}

export interface SyncStatusInput {
  prev: Status | undefined;
  generation: number | undefined;
  /** undefined: settings rendered fine. */
  renderError?: { reason: string; message: string };
  rollingOut?: string;
  notes: string[];
  reports: ReplicaReport[];
  now: Date;
}

export function buildSyncStatus(i: SyncStatusInput): Status {
  const rows = replicaRows(i.reports);
  let conditions: Condition[] | undefined = i.prev?.conditions;
  if (i.renderError) {
    conditions = setCondition(conditions, { type: 'Ready', status: 'False', reason: i.renderError.reason, message: i.renderError.message }, i.now);
    conditions = setCondition(conditions, { type: 'Degraded', status: 'True', reason: i.renderError.reason, message: i.renderError.message }, i.now);
    // Settings that cannot be applied stay so until the spec (or what it names) changes: kstatus Failed.
    conditions = withProgress(conditions, { state: 'stalled', ...i.renderError }, i.now);
    return { conditions, observedGeneration: i.generation, replicas: rows };
  }
  const failing = rows.filter((r) => r.lastError);
  const synced = rows.filter((r) => r.lastSuccessfulCycle && !r.lastError);
  const replicas = new Set(i.reports.map((r) => r.replica));
  const allSynced = i.reports.length > 0 && i.reports.every((r) => r.status && r.status.syncables.length > 0 && r.status.syncables.every((s) => s.lastSuccessfulCycle && !s.lastError));
  conditions = setCondition(
    conditions,
    i.rollingOut
      ? { type: 'Progressing', status: 'True', reason: 'RollingOut', message: i.rollingOut }
      : { type: 'Progressing', status: 'False', reason: 'SettingsApplied', message: `settings applied to ${replicas.size} replica(s)` },
    i.now,
  );
  conditions = setCondition(
    conditions,
    allSynced
      ? { type: 'Ready', status: 'True', reason: 'Synced', message: `${replicas.size} replica(s) completed a sync cycle${i.notes.length ? `; ${i.notes.join('; ')}` : ''}` }
      : {
          type: 'Ready',
          status: 'False',
          reason: i.reports.length === 0 ? 'NoReplicas' : 'Syncing',
          message: i.reports.length === 0 ? 'no target replicas found' : `${synced.length} of ${rows.length} replica tables synced`,
        },
    i.now,
  );
  conditions = setCondition(
    conditions,
    failing.length
      ? { type: 'Degraded', status: 'True', reason: 'SyncErrors', message: failing.map((r) => `${r.replica}${r.syncable ? `/${r.syncable}` : ''}: ${r.lastError}`).join('; ') }
      : { type: 'Degraded', status: 'False', reason: 'NoErrors', message: 'no sync errors' },
    i.now,
  );
  // kstatus: a settings rollout leaves Ready as the old settings had it; Reconciling says it is not done.
  const ready = conditions.find((c) => c.type === 'Ready')!;
  conditions = withProgress(
    conditions,
    i.rollingOut
      ? { state: 'reconciling', reason: 'RollingOut', message: i.rollingOut }
      : allSynced
        ? { state: 'done' }
        : { state: 'reconciling', reason: ready.reason ?? 'Syncing', message: ready.message ?? '' },
    i.now,
  );
  return { conditions, observedGeneration: i.generation, replicas: rows };
}
