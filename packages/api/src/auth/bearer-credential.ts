import { isSessionId } from './session-id.ts';

export type BearerCredential = { kind: 'session'; id: string } | { kind: 'token'; token: string };

/**
 * The header that carries the bearer credential when `Authorization` cannot: the kube-apiserver's
 * services proxy authenticates the caller with `Authorization` and deletes it before proxying, so
 * the CLI sends the admin credential here on that path. Same value, same rules as the bearer.
 */
export const ORRERY_AUTHORIZATION_HEADER = 'x-orrery-authorization';

/**
 * What an `Authorization: Bearer …` header carries, decided by its form alone: a `sess_` id is a
 * session (the CLI after a login), anything else is compared with the admin token
 * (automation). No value can be both, so a hex admin token always acts as the admin token.
 */
export function bearerCredential(authorization: string | undefined): BearerCredential | undefined {
  const value = /^Bearer[ \t]+(.+)$/i.exec(authorization ?? '')?.[1]?.trim();
  if (!value) return undefined;
  return isSessionId(value) ? { kind: 'session', id: value } : { kind: 'token', token: value };
}

/**
 * The bearer credential of a request. `X-Orrery-Authorization`, when sent, is the only one looked
 * at: it is meant for Orrery alone, while `Authorization` may belong to a hop in between (an
 * authenticating proxy that passes it on). A malformed dedicated header is no credential, never
 * a fallback to the other header, so one request is never judged by two credentials.
 */
export function requestBearerCredential(headers: { authorization?: string; orreryAuthorization?: string }): BearerCredential | undefined {
  return bearerCredential(headers.orreryAuthorization !== undefined ? headers.orreryAuthorization : headers.authorization);
}
