import { describe, expect, it } from 'vitest';
import { bearerCredential, requestBearerCredential } from './bearer-credential.ts';
import { isCookieSessionId, isSessionId, newSessionId, SESSION_ID_PREFIX } from './session-id.ts';

const HEX64 = 'ab'.repeat(32);

describe('session ids', () => {
  it('are the prefix and 64 hex characters, random each time', () => {
    const a = newSessionId();
    expect(a).toMatch(/^sess_[0-9a-f]{64}$/);
    expect(a.startsWith(SESSION_ID_PREFIX)).toBe(true);
    expect(newSessionId()).not.toBe(a);
    expect(isSessionId(a)).toBe(true);
  });
  it('a bare 64-hex value is a session id only in the cookie (issued before the prefix)', () => {
    expect(isSessionId(HEX64)).toBe(false);
    expect(isCookieSessionId(HEX64)).toBe(true);
    expect(isCookieSessionId(`sess_${HEX64}`)).toBe(true);
  });
  it.each(['', 'sess_', `sess_${HEX64}0`, `sess_${HEX64.toUpperCase()}`, `SESS_${HEX64}`, `sess_${'z'.repeat(64)}`, `${HEX64}0`, ` sess_${HEX64}`])('%j is no session id', (v) => {
    expect(isSessionId(v)).toBe(false);
    expect(isCookieSessionId(v)).toBe(false);
  });
});

describe('bearerCredential', () => {
  it('a sess_ id is a session', () => {
    expect(bearerCredential(`Bearer sess_${HEX64}`)).toEqual({ kind: 'session', id: `sess_${HEX64}` });
  });
  it('a 64-hex admin token (openssl rand -hex 32) is a token, never a session', () => {
    expect(bearerCredential(`Bearer ${HEX64}`)).toEqual({ kind: 'token', token: HEX64 });
  });
  it('anything else is a token; the scheme is case-insensitive and surrounding blanks go', () => {
    expect(bearerCredential('bearer   my-token  ')).toEqual({ kind: 'token', token: 'my-token' });
    expect(bearerCredential(`BEARER\tsess_${HEX64}`)).toEqual({ kind: 'session', id: `sess_${HEX64}` });
    expect(bearerCredential(`Bearer sess_${HEX64}x`)).toEqual({ kind: 'token', token: `sess_${HEX64}x` });
  });
  it.each([undefined, '', 'Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', `Token ${HEX64}`])('%j carries no bearer credential', (h) => {
    expect(bearerCredential(h)).toBeUndefined();
  });
});

describe('requestBearerCredential', () => {
  it('takes Authorization when X-Orrery-Authorization is absent', () => {
    expect(requestBearerCredential({ authorization: 'Bearer from-authorization' })).toEqual({ kind: 'token', token: 'from-authorization' });
  });
  it('takes X-Orrery-Authorization by the same rules, before Authorization (which may belong to a hop in between)', () => {
    expect(requestBearerCredential({ authorization: 'Bearer kube-credential', orreryAuthorization: `Bearer sess_${HEX64}` })).toEqual({ kind: 'session', id: `sess_${HEX64}` });
    expect(requestBearerCredential({ orreryAuthorization: `bearer ${HEX64}` })).toEqual({ kind: 'token', token: HEX64 });
  });
  it.each(['', 'Basic dXNlcjpwYXNz', 'Bearer', HEX64])('a malformed X-Orrery-Authorization %j is no credential, never a fallback to Authorization', (h) => {
    expect(requestBearerCredential({ authorization: `Bearer ${HEX64}`, orreryAuthorization: h })).toBeUndefined();
  });
});
