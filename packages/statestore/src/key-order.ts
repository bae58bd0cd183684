/**
 * Keys sort by UTF-8 bytes (Postgres COLLATE "C"), so both drivers list in one order and a
 * cursor from one page means the same thing everywhere.
 */
import { stateKeyProblem } from '@orrery/spec';
import { StateStoreError } from './errors.ts';
import { DEFAULT_LIST_LIMIT, MAX_LIST_LIMIT } from './types.ts';

export function compareKeys(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    // UTF-16 order differs from code-point order only for surrogates vs U+E000..U+FFFF.
    if (x >= 0xd800) x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
    if (y >= 0xd800) y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    return x - y;
  }
  return a.length - b.length;
}

/** Opaque list cursor: the last key returned, base64url. */
export const encodeCursor = (lastKey: string): string => Buffer.from(lastKey, 'utf8').toString('base64url');

const BAD_CURSOR = 'cursor is not one this service returned; pass the cursor from the previous page unchanged';

/**
 * The key a cursor stands for. Only what `encodeCursor` can have produced is accepted: canonical
 * base64url of a valid key (so no NUL or control character, no invalid UTF-8, at most 512 bytes)
 * ever reaches a driver's query.
 */
export function decodeCursor(cursor: string | undefined): string | undefined {
  if (!cursor) return undefined;
  if (!/^[A-Za-z0-9_-]{1,1024}$/.test(cursor)) throw new StateStoreError('bad_request', BAD_CURSOR);
  const key = Buffer.from(cursor, 'base64url').toString('utf8');
  if (encodeCursor(key) !== cursor || stateKeyProblem(key) !== undefined) throw new StateStoreError('bad_request', BAD_CURSOR);
  return key;
}

export function listLimit(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new StateStoreError('bad_request', `limit must be an integer from 1 to ${MAX_LIST_LIMIT}`);
  }
  return limit;
}

/** Largest code point: `prefix + MAX_CHAR` bounds a prefix range scan from above. */
export const MAX_CHAR = String.fromCodePoint(0x10ffff);
