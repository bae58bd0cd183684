/**
 * What the Revision reconciler (revision-reconciler.ts) reads and drives on a backend. The rules —
 * whether a revision runs, how many workers the KPA wants, the status and its Events — stay in the
 * reconciler; a backend only says where objects are read and how workers are started and observed
 * (local: child processes, backends/local/local-revision-backend.ts; Kubernetes: a Deployment and
 * its children, backends/kubernetes/kube-revision-backend.ts).
 */
import type { OrreryFunction, Revision, RevisionStatus, StateCredentials } from '@orrery/spec';
import type { RevisionWorkers } from '../reconcile/revision-workers.ts';

/** A Ready condition a backend sets for a revision that is not judged by its workers alone. */
export interface ReadyOverride {
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
}

/**
 * Fission's poolmgr on a backend: pool-executor revisions are served by specialized pool workers,
 * scaled by the KPA's decision, never by revision workers of their own.
 */
export interface RevisionPool {
  /** The revision runs: keep its environment's pool warm and specialize up to `desired` (absent: no KPA). */
  keep(rev: Revision, desired: number | undefined, credentials: StateCredentials | undefined): void;
  /** The revision no longer runs: its specialized workers go. */
  release(key: string): Promise<void>;
  /** What serves the revision now, and the Ready condition that replaces the workers' own. */
  observe(rev: Revision, wanted: boolean, desired: number): Promise<{ workers: RevisionWorkers; ready?: ReadyOverride }>;
}

export interface RevisionBackend {
  /** The Revision now; undefined once it is gone. */
  revision(namespace: string, name: string): Promise<Revision | undefined>;
  /** Its Function; undefined when it is gone or being deleted (its revisions go with it). */
  owner(rev: Revision): Promise<OrreryFunction | undefined>;
  revisionsOf(namespace: string, fn: string): Promise<Revision[]>;
  /** Nothing of the revision may run: stop its workers (local) or leave them to garbage collection (Kubernetes). */
  release(namespace: string, name: string): Promise<void>;
  /** Why this backend cannot run the revision at all (local: the container executor). */
  unsupported?(rev: Revision): ReadyOverride | undefined;
  /** The state token of a stateful Function that owns its keyspace (none otherwise). */
  credentials(fn: OrreryFunction): StateCredentials | undefined;
  /** Objects the revision's workers need before they start (Kubernetes: Deployment, Service, Secrets). */
  prepare?(fn: OrreryFunction, rev: Revision, credentials: StateCredentials | undefined): Promise<void>;
  /** Runs `desired` revision workers (deploy executor) and says what runs now. */
  runWorkers(rev: Revision, desired: number, credentials: StateCredentials | undefined): Promise<RevisionWorkers>;
  /** Absent: pool-executor revisions run revision workers like deploy ones. */
  pool?: RevisionPool;
  /** Backend conditions added to a computed status (Kubernetes: Reconciled). */
  settle?(key: string, status: RevisionStatus): RevisionStatus;
  /** Writes the status; returns the status this change's Events are computed from. */
  writeStatus(rev: Revision, status: RevisionStatus): Promise<RevisionStatus | undefined>;
}
