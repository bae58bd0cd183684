/**
 * The pool executor's cold path, the same on both backends (local: backends/local/local-pool-executor.ts;
 * Kubernetes: backends/kubernetes/kube-pool-executor.ts): a warm generic worker loads one
 * revision's code and answers with its address.
 */
import type { Revision, StateCredentials } from '@orrery/spec';

/** A worker's address; with timings when this call specialized it (for the cold-start breakdown). */
export interface Specialization {
  address: string;
  /** The worker's `/v1/specialize` round trip, and the part of it spent loading the code. */
  timing?: { workerMs: number; loadMs?: number };
}

export class SpecializeError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/** What `POST /v1/executor/specialize` (specialize-http.ts) asks of a backend's pool. */
export interface PoolSpecializer {
  specialize(rev: Revision, credentials?: StateCredentials): Promise<Specialization>;
}
