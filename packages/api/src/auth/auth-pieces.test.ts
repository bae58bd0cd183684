import { describe, expect, it } from 'vitest';
import { redactInput } from '../audit/redact.ts';
import { tokenMatches } from './admin-token.ts';
import { hashPassword, verifyPassword } from './password.ts';
import { roleAllows } from './roles.ts';
import { clearedSessionCookie, sessionCookie, sessionIdFromCookie } from './session-cookie.ts';

describe('auth pieces', () => {
  it('scrypt hashes verify only the right password', async () => {
    const h = await hashPassword('correct horse');
    expect(h).toMatch(/^scrypt\$16384\$8\$1\$[0-9a-f]{32}\$[0-9a-f]{64}$/);
    expect(await verifyPassword('correct horse', h)).toBe(true);
    expect(await verifyPassword('wrong horse', h)).toBe(false);
    expect(await verifyPassword('x', 'plain')).toBe(false);
    expect(await hashPassword('correct horse')).not.toBe(h); // salted
  });
  it('token comparison', () => {
    expect(tokenMatches('abc', 'abc')).toBe(true);
    expect(tokenMatches('abc', 'abcd')).toBe(false);
    expect(tokenMatches('abc', undefined)).toBe(false);
  });
  it('roles are ordered', () => {
    expect(roleAllows('admin', 'operator')).toBe(true);
    expect(roleAllows('operator', 'operator')).toBe(true);
    expect(roleAllows('viewer', 'operator')).toBe(false);
    expect(roleAllows('operator', 'admin')).toBe(false);
  });
  it('session cookies', () => {
    const id = 'ab'.repeat(32);
    expect(sessionCookie(id, 60, true)).toBe(`orrery_session=${id}; Path=/; HttpOnly; SameSite=Strict; Max-Age=60; Secure`);
    expect(clearedSessionCookie(false)).toContain('Max-Age=0');
    expect(sessionIdFromCookie(`a=1; orrery_session=${id}; b=2`)).toBe(id);
    expect(sessionIdFromCookie('orrery_session=../../etc')).toBeUndefined();
    expect(sessionIdFromCookie(undefined)).toBeUndefined();
  });
  it('redacts secrets from audited input at any depth', () => {
    expect(redactInput({ method: 'token', token: 's3cret', nested: { password: 'p', keep: 1 }, list: [{ apiToken: 'x' }] })).toEqual({
      method: 'token',
      token: '[redacted]',
      nested: { password: '[redacted]', keep: 1 },
      list: [{ apiToken: '[redacted]' }],
    });
  });
});
