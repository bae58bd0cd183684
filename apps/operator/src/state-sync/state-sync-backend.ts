/**
 * What the StateSync reconciler (state-sync-reconciler.ts) drives on a backend: which replicas a
 * StateSync configures, and how its settings reach them (local: restarting the operator's router
 * processes, backends/local/local-state-sync-backend.ts; Kubernetes: patching the target
 * Deployments, backends/kubernetes/kube-state-sync-backend.ts). Ordering, one-owner-per-target and
 * status writes stay in the reconciler.
 */
import type { StateSync } from '@orrery/spec';
import type { SyncStatusInput } from './replica-status.ts';

/** The replicas a StateSync configures: `key` identifies them, `describe` names them in a Conflict. */
export type StateSyncTarget = { key: string; describe: string } | { unsupported: { reason: string; message: string } };

/** Writes the StateSync's status (the previous status is read fresh; defaults: no notes, no reports). */
export type WriteSyncStatus = (i: Partial<SyncStatusInput>) => Promise<void>;

export interface StateSyncBackend {
  target(ss: StateSync): StateSyncTarget;
  /** Renders and rolls out the settings of the target's owner, reads its replicas, reports through `write`. */
  sync(ss: StateSync, write: WriteSyncStatus): Promise<void>;
  /** A StateSync was deleted (Kubernetes: take its env and annotation back off the Deployments). */
  release?(ss: StateSync): Promise<void>;
  /** No StateSync owns any target (local: the routers go back to replica-local tables). */
  unused?(): Promise<void>;
}
