import { isSessionId } from './session-id.ts';

export type BearerCredential = { kind: 'session'; id: string } | { kind: 'token'; token: string };

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
