import { isCookieSessionId } from './session-id.ts';

export const SESSION_COOKIE = 'orrery_session';

/** httpOnly (no script reads it), SameSite=Strict (no cross-site sends), Secure over https. */
export function sessionCookie(id: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${Math.floor(maxAgeSeconds)}${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/** The session id from a Cookie header, if it looks like one (`sess_` + 64 hex, or 64 hex from before the prefix). */
export function sessionIdFromCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === SESSION_COOKIE) {
      const v = part.slice(eq + 1).trim();
      return isCookieSessionId(v) ? v : undefined;
    }
  }
  return undefined;
}
