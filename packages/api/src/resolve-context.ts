import { tokenMatches } from './auth/admin-token.ts';
import { sessionIdFromCookie } from './auth/session-cookie.ts';
import { lookupSession } from './auth/sessions.ts';
import type { ApiContext, ApiServices, Principal } from './context.ts';

export interface RequestFacts {
  cookie?: string;
  authorization?: string;
  /** The request arrived over https (cookies get Secure). */
  secure: boolean;
}

/**
 * The per-request context from the cookie or `Authorization: Bearer` — a session id (CLI after
 * login) or the admin token itself (automation). Shared by the node:http handler and a future
 * Next.js route handler.
 */
export async function resolveContext(services: ApiServices, facts: RequestFacts, setCookie: (v: string) => void): Promise<ApiContext> {
  const now = services.now?.() ?? new Date();
  let principal: Principal | undefined;
  let sessionId = sessionIdFromCookie(facts.cookie);
  const bearer = /^Bearer (.+)$/i.exec(facts.authorization ?? '')?.[1]?.trim();
  if (!sessionId && bearer) {
    if (/^[0-9a-f]{64}$/.test(bearer)) sessionId = bearer;
    else if (tokenMatches(bearer, services.adminToken)) principal = { who: 'admin-token', role: 'admin', via: 'admin-token' };
  }
  if (!principal && sessionId) principal = await lookupSession(services.db, sessionId, now);
  return { ...services, principal, sessionId, secure: facts.secure, setCookie };
}
