import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** Constant-time comparison of the bearer token with the expected one (hashing equalises lengths). */
export function bearerMatches(req: IncomingMessage, expected: string): boolean {
  const header = req.headers.authorization ?? '';
  const m = /^Bearer\s+(.+)$/i.exec(header);
  const given = createHash('sha256').update(m?.[1]?.trim() ?? '').digest();
  const want = createHash('sha256').update(expected).digest();
  return timingSafeEqual(given, want) && m !== null && expected.length > 0;
}

/**
 * The credential a writer presented: undefined without an Authorization header, the token of
 * `Bearer <token>`, and '' for any other header (presented, but never valid).
 */
export function presentedBearer(req: IncomingMessage): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : '';
}

export function hasBearer(req: IncomingMessage): boolean {
  return /^Bearer\s+\S/i.test(req.headers.authorization ?? '');
}

/** 127.0.0.0/8 and ::1, including IPv4-mapped IPv6 forms. */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(a);
}
