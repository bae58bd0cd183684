/**
 * What a viewer sees instead of a hot key: a keyed hash, stable (the same key shows the same id on
 * every poll and every operator replica) and not reversible by hashing guesses, because the key of
 * the HMAC is secret: HKDF of statesvc's master key (info `v1:hot-key-id`), or without one (a
 * pass-through development statesvc) a random secret per API process. Scoped to the keyspace or
 * function, so one key in two keyspaces does not link them. 64 bits of the HMAC-SHA256, hex.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { hkdf32 } from '@orrery/auth';

export const HOT_KEY_ID_INFO = 'v1:hot-key-id';
const PROCESS_SECRET = randomBytes(32);

export type HotKeyHasher = (scope: string, key: string) => string;

export function hotKeyHasher(masterKey: Buffer | undefined): HotKeyHasher {
  const secret = masterKey ? hkdf32(masterKey, HOT_KEY_ID_INFO) : PROCESS_SECRET;
  return (scope, key) => `h:${createHmac('sha256', secret).update(scope).update('\0').update(key).digest('hex').slice(0, 16)}`;
}

/** The hash scope of a keyspace's state keys and of a function's sticky keys. */
export const stateKeyScope = (namespace: string, keyspace: string): string => `state:${namespace}/${keyspace}`;
export const stickyKeyScope = (namespace: string, fn: string): string => `sticky:${namespace}/${fn}`;
