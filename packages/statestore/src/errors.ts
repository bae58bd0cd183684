import { STATE_ERROR_STATUS, type StateErrorCode } from '@orrery/spec';

/**
 * Machine-readable error codes and HTTP statuses of RFC-0023 §3: statesvc's wire contract
 * (packages/spec/src/wire/statesvc-http.ts) defines them; the store raises the same codes.
 */
export const ERROR_STATUS = STATE_ERROR_STATUS;

export type ErrorCode = StateErrorCode;

export class StateStoreError extends Error {
  readonly code: ErrorCode;
  /** Finer reason for metrics (`value_bytes`, `keys`, `namespace_bytes`), when a quota refused. */
  readonly quotaKind?: 'value_bytes' | 'keys' | 'namespace_bytes';
  /** With `fenced`: the key's highest fence (0 = none claimed); statesvc puts it in the body. */
  readonly fence?: number;
  /**
   * `cause` keeps what a driver or database said (SQL, parameters, OS errors) for the server's
   * log; statesvc never puts it, nor a 5xx message, in a response.
   */
  constructor(code: ErrorCode, message: string, quotaKind?: StateStoreError['quotaKind'], options?: { cause?: unknown; fence?: number }) {
    super(message, options);
    this.name = 'StateStoreError';
    this.code = code;
    this.quotaKind = quotaKind;
    if (options?.fence !== undefined) this.fence = options.fence;
  }
  get status(): number {
    return ERROR_STATUS[this.code];
  }
}

export const versionConflict = (key: string, ifVersion: number) =>
  new StateStoreError(
    'version_conflict',
    ifVersion === 0 ? `key ${JSON.stringify(key)} already exists (create-only write)` : `key ${JSON.stringify(key)} is not at version ${ifVersion}; re-read and retry`,
  );

export const quotaKeys = (maxKeys: number) =>
  new StateStoreError('quota_keys', `keyspace holds its maximum of ${maxKeys} keys; delete keys or raise spec.state.maxKeys`, 'keys');

export const quotaNamespaceBytes = (budget: number) =>
  new StateStoreError('quota_keys', `namespace byte budget of ${budget} bytes is exhausted; delete keys or raise the budget`, 'namespace_bytes');

export const idempotencyMismatch = (idempotencyKey: string) =>
  new StateStoreError(
    'idempotency_mismatch',
    `Idempotency-Key ${JSON.stringify(idempotencyKey)} was already used in this keyspace for a different request (method, key, body, precondition or TTL; a read and a write are different requests); send a new key for a new request, the same request to retry`,
  );

/**
 * A write whose fence is not the key's current one (docs/state.md "Fencing"): lower = another
 * worker claimed the key since; higher = never issued for it (e.g. the keyspace was deleted).
 */
export const fenced = (key: string, fence: number, highest: number) =>
  new StateStoreError(
    'fenced',
    fence < highest
      ? `key ${JSON.stringify(key)} is fenced: fence ${fence} is older than its current fence ${highest} (another worker claimed the key); nothing was written. Stop writing this key here, or claim a new fence (POST /v1/fences/{key}) and re-read the key before writing again`
      : `fence ${fence} was never issued for key ${JSON.stringify(key)} (its current fence is ${highest === 0 ? 'none' : highest}); nothing was written. Claim a fence with POST /v1/fences/{key} and re-read the key before writing`,
    undefined,
    { fence: highest },
  );
