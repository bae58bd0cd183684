import { tokenMatches } from './auth/admin-token.ts';
import { requestBearerCredential } from './auth/bearer-credential.ts';
import { sessionIdFromCookie } from './auth/session-cookie.ts';
import { ADMIN_TOKEN_WHO } from './auth/user-name.ts';
import { lookupSession } from './auth/sessions.ts';
import type { ApiContext, ApiServices, Principal } from './context.ts';

export interface RequestFacts {
  cookie?: string;
  authorization?: string;
  /** `X-Orrery-Authorization`: the bearer credential where `Authorization` is consumed on the way (the kube-apiserver's proxy). */
  orreryAuthorization?: string;
  /** The request arrived over https (cookies get Secure). */
  secure: boolean;
  /** The client's address (the peer, or what a trusted proxy reports). */
  clientAddress?: string;
}

/**
 * The per-request context from the session cookie or `Authorization: Bearer` (or the same value in
 * `X-Orrery-Authorization`, which then wins) — a `sess_` session id (CLI after login) or else the
 * admin token itself (automation); see bearer-credential.ts. A session cookie, when present, is
 * used before any bearer header (as before). Shared by the
 * node:http handler and a Next.js route.
 */
export async function resolveContext(
  services: ApiServices,
  facts: RequestFacts,
  setCookie: (v: string) => void,
  setHeader?: (name: string, value: string) => void,
): Promise<ApiContext> {
  const now = services.now?.() ?? new Date();
  let principal: Principal | undefined;
  let sessionId = sessionIdFromCookie(facts.cookie);
  const bearer = sessionId ? undefined : requestBearerCredential(facts);
  if (bearer?.kind === 'token') {
    if (tokenMatches(bearer.token, services.adminToken)) principal = { who: ADMIN_TOKEN_WHO, role: 'admin', via: 'admin-token' };
  } else if (bearer?.kind === 'session') {
    sessionId = bearer.id;
  }
  if (sessionId) principal = await lookupSession(services.db, sessionId, now);
  return { ...services, principal, sessionId, secure: facts.secure, clientAddress: facts.clientAddress, setCookie, setHeader };
}
