/**
 * Issue 20 item 11 — an admin token made as the docs say (`openssl rand -hex 32`: 64 hex
 * characters) works as `Authorization: Bearer` on a running operator; it used to be taken for
 * a session id and refused. Session ids are told apart by their `sess_` prefix.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, sessionCookieOf, startAdminApi, trpc, type AdminApiProcess } from './testing/admin-api-process.ts';

const HEX_TOKEN = randomBytes(32).toString('hex');
let api: AdminApiProcess;

beforeAll(async () => {
  api = await startAdminApi({ adminToken: HEX_TOKEN });
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

describe('a 64-hex bearer admin token (real operator process)', () => {
  it('acts as the admin token', async () => {
    const r = await trpc(api.url, 'auth.whoami', { headers: { authorization: `Bearer ${HEX_TOKEN}` } });
    expect(r.json?.result?.data).toEqual({ who: 'admin-token', role: 'admin', via: 'admin-token' });
    expect((await trpc(api.url, 'functions.list', { headers: { authorization: `Bearer ${HEX_TOKEN}` } })).status).toBe(200);
  });

  it('another 64-hex value is neither the token nor a session', async () => {
    const r = await trpc(api.url, 'functions.list', { headers: { authorization: `Bearer ${'0'.repeat(64)}` } });
    expect(r.status).toBe(401);
    expect(errorCode(r)).toBe('UNAUTHORIZED');
  });

  it('a session id from a login is sess_-prefixed and works as a bearer credential', async () => {
    const login = await trpc(api.url, 'auth.login', { mutation: true, input: { method: 'token', token: HEX_TOKEN } });
    const cookie = sessionCookieOf(login)!;
    const id = cookie.split('=')[1]!;
    expect(id).toMatch(/^sess_[0-9a-f]{64}$/);
    const r = await trpc(api.url, 'auth.whoami', { headers: { authorization: `Bearer ${id}` } });
    expect(r.json?.result?.data).toEqual({ who: 'admin-token', role: 'admin', via: 'session' });
  });
});
