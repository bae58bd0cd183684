/**
 * What a backend observes of one revision's workers (local: child processes; Kubernetes: the
 * Deployment's replicas or specialized pool pods): the input of the Revision status.
 */
export interface RevisionWorkers {
  desired: number;
  actual: number;
  ready: number;
  restarts: number;
  /** Last stderr lines of a worker that keeps crashing. */
  crashLoop?: string;
  /** Why no worker can start (a secret the template names is missing), like CreateContainerConfigError. */
  configError?: string;
  /** A failure the backend itself reports as final (Kubernetes: the Deployment's ProgressDeadlineExceeded). */
  failed?: { reason: string; message: string };
}
