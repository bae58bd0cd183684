import { HttpError } from './http-error.ts';

export const MAX_KEY_BYTES = 512;

// C0, DEL and C1 controls; U+10FFFF is the prefix-scan upper bound (see statestore key-order).
const FORBIDDEN = /[\u0000-\u001f\u007f-\u009f]|\u{10FFFF}/u;

/** Decodes and validates a key from the path: 1–512 UTF-8 bytes, no controls, no leading '#'. */
export function parseKey(encoded: string): string {
  let key: string;
  try {
    key = decodeURIComponent(encoded);
  } catch {
    throw new HttpError('bad_request', 'key is not valid percent-encoded UTF-8; encode it with encodeURIComponent');
  }
  if (key.length === 0) throw new HttpError('bad_request', 'key is empty; use /v1/state/{key}');
  if (Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) throw new HttpError('bad_request', `key is longer than ${MAX_KEY_BYTES} bytes`);
  if (key.startsWith('#')) throw new HttpError('bad_request', "keys starting with '#' are reserved for the platform");
  if (FORBIDDEN.test(key)) throw new HttpError('bad_request', 'key contains a control character');
  return key;
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
