/**
 * What the RegistryCluster reconciler drives on a backend: the etcd members of one cluster and
 * the `orrery-registry` API beside them. Planning (plan-membership.ts), request handling and the
 * etcd cluster API calls stay in the reconciler; a placement only runs, stops and forgets members
 * (local: child processes; Kubernetes: ordinals of a StatefulSet).
 */
import type { RegistryCluster } from '@orrery/spec';

/** One member's identity: stable across operator restarts. */
export interface MemberRef {
  /** `<cluster>-<ordinal>`, as the planner names members. */
  name: string;
  ordinal: number;
  clientURL: string;
  peerURL: string;
}

export interface RegistryMembers {
  /** Members this placement holds an identity for, by ordinal. */
  list(): MemberRef[];
  get(name: string): MemberRef | undefined;
  /** Its etcd runs now (local: the process; Kubernetes: the pod is Running). */
  isRunning(name: string): boolean;
  /** Started before, so its first-start settings are fixed (local: a data dir; Kubernetes: its config). */
  hasData(name: string): boolean;
  /** Records the identity before etcd hears of the member (crash-safe order). Nothing runs yet. */
  create(name: string, ordinal: number): Promise<MemberRef>;
  /** Runs the member; `initialCluster` and `state` only matter the first time (etcd then reads its data). */
  start(name: string, initialCluster: string, state: 'new' | 'existing'): Promise<void>;
  /** After etcd removed the member: stop it and delete its data so it can never rejoin. */
  forget(name: string): Promise<void>;
  /** The operator stops: local members stop with it; Kubernetes pods keep running. */
  stopAll(): Promise<void>;
  /** Test hooks of the local backend: a crash, a machine gone for good, a process paused (SIGSTOP) and resumed. */
  kill?(name: string): Promise<void>;
  fail?(name: string): Promise<void>;
  pause?(name: string): void;
  resume?(name: string): void;
}

/** The registry API of one cluster, following the voters. */
export interface RegistryApi {
  /** Runs it against these etcd client URLs (re-rolls it when they change). */
  ensure(voterClientURLs: string[]): Promise<void>;
  running(): boolean;
  /** The public URL (status.endpoint); undefined until it runs. */
  readonly url?: string;
  stop(): Promise<void>;
}

/** One cluster's runtime on a backend. */
export interface ClusterPlacement {
  members: RegistryMembers;
  api?: RegistryApi;
  /** Why no member can run here (local: no etcd binary), reported as a condition; undefined = fine. */
  blocked?(): { reason: string; message: string } | undefined;
  /** Re-reads what the backend holds and applies the cluster's fixed objects, before each pass. */
  refresh?(rc: RegistryCluster): Promise<void>;
  /** The resource is gone or the operator stops (members follow `stopAll`'s rule). */
  release(): Promise<void>;
}

export interface RegistryClusterBackend {
  open(rc: RegistryCluster, log: (msg: string, fields?: Record<string, unknown>) => void): ClusterPlacement;
}
