import { parseDurationMs } from './duration.ts';
import type { StateConfig, StateOnDelete } from './kinds/function.ts';

/** RFC-0023 platform defaults for a zero-valued quota. */
export const DEFAULT_STATE_MAX_VALUE_BYTES = 256 * 1024;
export const DEFAULT_STATE_MAX_KEYS = 10_000;

/** The keyspace a function reads and writes: explicit, else the function's name. */
export function effectiveKeyspace(functionName: string, state: Pick<StateConfig, 'keyspace'> | undefined): string {
  return state?.keyspace ? state.keyspace : functionName;
}

export function effectiveMaxValueBytes(state: Pick<StateConfig, 'maxValueBytes'> | undefined): number {
  const v = state?.maxValueBytes ?? 0;
  return v > 0 ? v : DEFAULT_STATE_MAX_VALUE_BYTES;
}

export function effectiveMaxKeys(state: Pick<StateConfig, 'maxKeys'> | undefined): number {
  const v = state?.maxKeys ?? 0;
  return v > 0 ? v : DEFAULT_STATE_MAX_KEYS;
}

/** Default TTL in milliseconds; 0 = keys do not expire unless a write asks. */
export function effectiveDefaultTtlMs(state: Pick<StateConfig, 'defaultTTL'> | undefined): number {
  if (!state?.defaultTTL) return 0;
  const ms = parseDurationMs(state.defaultTTL);
  return Number.isFinite(ms) && ms > 0 ? ms : 0;
}

/**
 * How long the outcome of an idempotent write is kept, in ms; undefined when the keyspace does
 * not say (statesvc then applies its `--idempotency-retention`, default 24h).
 */
export function effectiveIdempotencyRetentionMs(state: Pick<StateConfig, 'idempotencyRetention'> | undefined): number | undefined {
  if (!state?.idempotencyRetention) return undefined;
  const ms = parseDurationMs(state.idempotencyRetention);
  return Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * Deprecated alias of `spec.state.onDelete` (the Kubernetes backend's first form of the
 * deletion policy). Read when the field is absent; the field wins when both are set.
 */
export const KEYSPACE_DELETION_POLICY_ANNOTATION = 'orrery.dev/keyspace-deletion-policy';

/**
 * What happens to a Function's keyspace data when the Function is deleted: `spec.state.onDelete`
 * when set; else the deprecated annotation when it says `delete`; else `retain`. Without
 * `spec.state` there is nothing to delete: `retain`.
 */
export function effectiveOnDelete(fn: { metadata: { annotations?: Record<string, string> }; spec: { state?: Pick<StateConfig, 'onDelete'> } }): StateOnDelete {
  if (!fn.spec.state) return 'retain';
  if (fn.spec.state.onDelete) return fn.spec.state.onDelete;
  return fn.metadata.annotations?.[KEYSPACE_DELETION_POLICY_ANNOTATION] === 'delete' ? 'delete' : 'retain';
}
