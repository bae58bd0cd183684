/** Machine-readable error codes and HTTP statuses of RFC-0023 §3. */
export const ERROR_STATUS = {
  bad_request: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  version_conflict: 412,
  quota_value_bytes: 413,
  quota_keys: 429,
  capability_unavailable: 503,
  internal: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export class StateStoreError extends Error {
  readonly code: ErrorCode;
  /** Finer reason for metrics (`value_bytes`, `keys`, `namespace_bytes`), when a quota refused. */
  readonly quotaKind?: 'value_bytes' | 'keys' | 'namespace_bytes';
  constructor(code: ErrorCode, message: string, quotaKind?: StateStoreError['quotaKind']) {
    super(message);
    this.name = 'StateStoreError';
    this.code = code;
    this.quotaKind = quotaKind;
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
