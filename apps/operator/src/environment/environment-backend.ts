/**
 * What the Environment reconciler (environment-reconciler.ts) reads and drives on a backend: where
 * Environments are read and written, and the warm pool behind one (local: pool worker processes
 * started with the first pool revision; Kubernetes: a pool Deployment and its specialize Secret).
 */
import type { Environment } from '@orrery/spec';

export type EnvironmentStatus = NonNullable<Environment['status']>;

export interface EnvironmentBackend {
  /** The Environment now; undefined once it is gone. */
  environment(namespace: string, name: string): Promise<Environment | undefined>;
  /** Objects its warm pool needs (Kubernetes: the specialize Secret, then the pool Deployment). */
  prepare?(env: Environment): Promise<void>;
  /** Warm pool workers ready to be specialized. */
  readyPoolWorkers(namespace: string, name: string): number;
  /** Backend conditions added to a computed status (Kubernetes: Reconciled). */
  settle?(key: string, status: EnvironmentStatus): EnvironmentStatus;
  writeStatus(env: Environment, status: EnvironmentStatus): Promise<void>;
}
