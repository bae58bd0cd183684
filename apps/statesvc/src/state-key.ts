import { STATE_KEY_MAX_BYTES, stateKeyProblem } from '@orrery/spec';
import { HttpError } from './http-error.ts';

export const MAX_KEY_BYTES = STATE_KEY_MAX_BYTES;

/** Decodes and validates a key from the path: 1–512 UTF-8 bytes, no controls, no leading '#'. */
export function parseKey(encoded: string): string {
  let key: string;
  try {
    key = decodeURIComponent(encoded);
  } catch {
    throw new HttpError('bad_request', 'key is not valid percent-encoded UTF-8; encode it with encodeURIComponent');
  }
  if (key.length === 0) throw new HttpError('bad_request', 'key is empty; use /v1/state/{key}');
  const problem = stateKeyProblem(key);
  if (problem) throw new HttpError('bad_request', problem);
  return key;
}

/**
 * The list `prefix` (already decoded from the query): absent or empty lists everything; any
 * other prefix follows the key rules, so the driver never sees a NUL or control character.
 */
export function parseListPrefix(prefix: string | null): string | undefined {
  if (prefix === null || prefix === '') return undefined;
  const problem = stateKeyProblem(prefix, 'prefix');
  if (problem) throw new HttpError('bad_request', `${problem}; a prefix follows the key rules`);
  return prefix;
}

/** `If-Match: 5` or `If-Match: "5"` → 5; absent → undefined. */
export function parseIfMatch(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const m = /^\s*"?(\d{1,15})"?\s*$/.exec(value);
  if (!m) throw new HttpError('bad_request', 'If-Match must be a version number returned in X-Orrery-State-Version');
  return Number(m[1]);
}

const MAX_TTL_SECONDS = 10 * 365 * 24 * 3600;

/** `X-Orrery-State-TTL: <seconds>`: 0 = never expires (overrides the keyspace default). */
export function parseTtlSeconds(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\s*\d{1,10}\s*$/.test(value) || Number(value) > MAX_TTL_SECONDS) {
    throw new HttpError('bad_request', `X-Orrery-State-TTL must be whole seconds from 0 to ${MAX_TTL_SECONDS}`);
  }
  return Number(value);
}
