import { randomBytes } from 'node:crypto';

/**
 * Session ids carry a prefix so nothing else can be mistaken for one: an admin token made as the
 * docs say (`openssl rand -hex 32`, 64 hex characters) used to be taken for a session id when
 * sent as a bearer token, and failed. A bearer credential is a session exactly when it starts
 * with this prefix; everything else is compared with the admin token.
 */
export const SESSION_ID_PREFIX = 'sess_';

const PREFIXED = /^sess_[0-9a-f]{64}$/;
/** Ids issued before the prefix existed (accepted from the session cookie only, until they expire). */
const LEGACY = /^[0-9a-f]{64}$/;

/** A new session id: the prefix and 32 random bytes in hex. */
export function newSessionId(): string {
  return `${SESSION_ID_PREFIX}${randomBytes(32).toString('hex')}`;
}

/** A current session id (prefixed). */
export function isSessionId(value: string): boolean {
  return PREFIXED.test(value);
}

/** A session id as the cookie may hold it: current, or unprefixed from before the prefix. */
export function isCookieSessionId(value: string): boolean {
  return PREFIXED.test(value) || LEGACY.test(value);
}
