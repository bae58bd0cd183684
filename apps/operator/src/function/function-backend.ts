/**
 * What the Function reconciler (function-reconciler.ts) reads and writes on a backend. The rules —
 * which revision to create, who owns a keyspace, the status, the Events, the keyspace cleanup —
 * stay in the reconciler; a backend only says where objects are read from and written to (local:
 * the resource store, backends/local/local-function-backend.ts; Kubernetes: informer caches and
 * the API server, backends/kubernetes/kube-function-backend.ts).
 */
import type { Environment, FunctionStatus, OrreryFunction, Revision, RevisionInput } from '@orrery/spec';

/** A Function's metadata as stored: what the deletion policy, the finalizer and Events read. */
export interface StoredFunction {
  kind?: string;
  metadata: {
    namespace: string;
    name: string;
    uid?: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
  };
}

export interface FunctionRead {
  /** Defaults applied; undefined when the stored object does not parse. */
  fn?: OrreryFunction;
  stored: StoredFunction;
}

export interface FunctionBackend {
  /** The Function now; undefined once it is gone. */
  read(namespace: string, name: string): Promise<FunctionRead | undefined>;
  /** The Function is gone: local deletes its Revisions; on Kubernetes the garbage collector does. */
  gone(namespace: string, name: string): Promise<void>;
  revisionsOf(namespace: string, fn: string): Promise<Revision[]>;
  environment(namespace: string, name: string): Promise<Environment | undefined>;
  /** The Functions keyspace ownership (S1) is judged on; a cache may lag a create. */
  functions(namespace: string): Promise<readonly unknown[]>;
  /**
   * The Functions of a namespace read fresh, where `functions` is a cache: a new revision (and a
   * token with it), and a keyspace's deletion, are decided on these. Absent: `functions` is fresh.
   */
  liveFunctions?(namespace: string): Promise<readonly unknown[]>;
  createRevision(rev: RevisionInput): Promise<Revision | undefined>;
  /** Deletes a revision garbage collection chose (revision-collection.ts); its workers go with it. */
  deleteRevision(namespace: string, name: string): Promise<void>;
  /** Backend conditions added to a computed status (Kubernetes: Reconciled). */
  settle?(key: string, status: FunctionStatus): FunctionStatus;
  /** Writes the status; returns the status this change's Events are computed from. */
  writeStatus(fn: OrreryFunction, status: FunctionStatus): Promise<FunctionStatus | undefined>;
  /**
   * Where deletion waits for a finalizer (Kubernetes), the keyspace cleanup of policy `delete`
   * runs before the finalizer goes. Absent (local: the store deletes at once): the operator runs
   * the cleanup from the deleted object (FunctionReconciler.releaseKeyspace).
   */
  finalizer?: KeyspaceFinalizer;
}

/** Finalizer that holds a Function until its keyspace is cleaned up (deletion policy `delete`). */
export const KEYSPACE_FINALIZER = 'orrery.dev/keyspace-cleanup';

export interface KeyspaceFinalizer {
  /** The Function read fresh (a cache can lag our own finalizer removal). */
  live(namespace: string, name: string): Promise<StoredFunction | undefined>;
  set(namespace: string, name: string, present: boolean): Promise<void>;
}
