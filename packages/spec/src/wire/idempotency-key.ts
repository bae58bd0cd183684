/**
 * `Idempotency-Key` on statesvc's writes and recorded reads (docs/state.md "Idempotent writes",
 * "Recorded reads"): the header names, the rule a key and a per-request retention must follow,
 * and what a stored outcome costs against a namespace byte budget. statesvc, statestore and the
 * SDKs use these, so the rules and the accounting have one definition.
 */

/** Request header naming a client's write (draft-ietf-httpapi-idempotency-key-header). */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
/** Response header on an answer that was stored by an earlier request with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';
/**
 * Request header capping how long this request's outcome is kept, in whole seconds: the outcome
 * lives min(this, the keyspace's retention). The runtime sends the function's timeout, so the
 * records of one invocation's state calls do not fill the byte budget for 24 h.
 */
export const IDEMPOTENCY_RETENTION_HEADER = 'X-Orrery-Idempotency-Retention';
/** At most this many digits (9 999 999 999 s, about 317 years: any keyspace retention is shorter). */
export const IDEMPOTENCY_RETENTION_MAX_DIGITS = 10;
/** Longest key, in characters (all ASCII, so also bytes). Stripe's limit; a UUID is 36. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;
/** Retention of a stored outcome when the keyspace sets none (`spec.state.idempotencyRetention`). */
export const DEFAULT_IDEMPOTENCY_RETENTION_MS = 24 * 3_600_000;

/**
 * Bytes one stored outcome counts against the namespace byte budget: the key itself plus a
 * fixed 64 for the request hash (32 bytes), the outcome, the version and the deadline. A
 * documented constant rather than a measured row size, so both drivers count the same.
 */
export const IDEMPOTENCY_RECORD_OVERHEAD_BYTES = 64;
export const idempotencyRecordBytes = (key: string): number => IDEMPOTENCY_RECORD_OVERHEAD_BYTES + key.length;
/**
 * Bytes a recorded read counts: an outcome's plus the value it holds (its UTF-8 byte count, as
 * a stored value counts; 0 for a read that found nothing), since the record keeps a copy of it.
 */
export const recordedReadBytes = (key: string, valueBytes: number): number => idempotencyRecordBytes(key) + valueBytes;

// Visible ASCII except '"' and '\' (which would need escaping inside the draft's sf-string form).
const KEY_CHARS = /^[\x21\x23-\x5b\x5d-\x7e]+$/;

/**
 * The key a header value names, or why it names none. One optional pair of surrounding double
 * quotes is removed (the IETF draft sends the key as a structured-field string, most clients
 * send it bare: both name the same key). A header sent twice arrives as an array (or joined
 * with ", ", which the space refuses): never guess which one the client meant.
 */
export function parseIdempotencyKey(value: string | string[] | undefined): { key?: string; problem?: string } {
  if (value === undefined) return {};
  if (Array.isArray(value)) return { problem: `send ${IDEMPOTENCY_KEY_HEADER} once` };
  const key = value.length >= 2 && value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value;
  if (key.length === 0) return { problem: `${IDEMPOTENCY_KEY_HEADER} is empty; send a unique id per write, e.g. a UUID` };
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH) return { problem: `${IDEMPOTENCY_KEY_HEADER} is longer than ${IDEMPOTENCY_KEY_MAX_LENGTH} characters; a UUID (36) is enough` };
  if (!KEY_CHARS.test(key)) {
    return { problem: `${IDEMPOTENCY_KEY_HEADER} may hold only visible ASCII characters other than '"' and '\\' (no spaces, no non-ASCII); a UUID is a good key` };
  }
  return { key };
}

// Plain decimal digits, no leading zero (so `0`, `+5`, `05`, `1.5`, `1e3` and ` 5` are refused).
const RETENTION_SECONDS = new RegExp(`^[1-9][0-9]{0,${IDEMPOTENCY_RETENTION_MAX_DIGITS - 1}}$`);

/**
 * The seconds an `X-Orrery-Idempotency-Retention` value names, or why it names none: a positive
 * whole number of at most 10 plain digits. Sent twice it is refused, as a key is.
 */
export function parseIdempotencyRetention(value: string | string[] | undefined): { seconds?: number; problem?: string } {
  if (value === undefined) return {};
  if (Array.isArray(value)) return { problem: `send ${IDEMPOTENCY_RETENTION_HEADER} once` };
  if (!RETENTION_SECONDS.test(value)) {
    return {
      problem: `${IDEMPOTENCY_RETENTION_HEADER} must be a whole number of seconds from 1, in at most ${IDEMPOTENCY_RETENTION_MAX_DIGITS} plain digits (no sign, fraction, unit or leading zero), e.g. 300`,
    };
  }
  return { seconds: Number(value) };
}
