import { createHash, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { SESSION_ID_PREFIX } from './session-id.ts';

/** Constant-time equality; both sides are hashed first so their lengths never leak. */
export function tokenMatches(presented: string, expected: string | undefined): boolean {
  if (!expected) return false;
  const a = createHash('sha256').update(presented).digest();
  const b = createHash('sha256').update(expected).digest();
  return timingSafeEqual(a, b);
}

/** The admin token from a file (a mounted Secret); surrounding whitespace is dropped. */
export function readAdminTokenFile(path: string): string {
  const token = readFileSync(path, 'utf8').trim();
  if (token.length < 16) throw new Error(`admin token file ${path} holds ${token.length} characters; use at least 16 (openssl rand -hex 32)`);
  // A bearer credential starting with the session prefix is always looked up as a session.
  if (token.startsWith(SESSION_ID_PREFIX)) throw new Error(`admin token file ${path}: a token must not start with "${SESSION_ID_PREFIX}" (that prefix marks session ids); use openssl rand -hex 32`);
  return token;
}
