import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import { upsertUser } from '../auth/sessions.ts';
import type { AppRouter } from '../routers/_app.ts';
import { ADMIN_TOKEN, createHarness, fnManifest, type Harness } from '../testing/api-harness.ts';
import { createApiHandler } from './api-handler.ts';

let h: Harness;
let server: Server;
let base: string;

beforeAll(async () => {
  h = await createHarness();
  await h.store.apply(fnManifest('web'));
  await upsertUser(h.conn, 'vera', 'viewer', 'viewer-password');
  await upsertUser(h.conn, 'otto', 'operator', 'operator-password');
  server = createServer(createApiHandler(() => h.services, { maxBodyBytes: 64 * 1024 }));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await h.close();
});

/** A tRPC client that keeps the session cookie like a browser would. */
function client() {
  let cookie = '';
  const c = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: `${base}/trpc`,
        headers: () => (cookie ? { cookie } : {}),
        fetch: async (url, init) => {
          const res = await fetch(url, init);
          const set = res.headers.getSetCookie();
          if (set.length) cookie = set[0]!.split(';')[0]!;
          return res;
        },
      }),
    ],
  });
  return { c, cookie: () => cookie };
}

async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, headers: res.headers, json: (await res.json()) as { error?: { data: { code: string; issues?: Array<{ path: string }> } }; result?: { data: unknown } } };
}

describe('auth.login / whoami / logout over HTTP', () => {
  it('logs in with the admin token and sets an httpOnly SameSite=Strict cookie', async () => {
    const r = await post('auth.login', { method: 'token', token: ADMIN_TOKEN });
    expect(r.status).toBe(200);
    const set = r.headers.getSetCookie()[0]!;
    expect(set).toMatch(/^orrery_session=sess_[0-9a-f]{64};/);
    expect(set).toContain('HttpOnly');
    expect(set).toContain('SameSite=Strict');
    expect(set).not.toContain('Secure'); // plain http here
    const row = (await h.audit()).at(-1)!;
    expect(row).toMatchObject({ action: 'auth.login', who: 'admin-token', role: 'admin', result: 'ok' });
    expect(JSON.stringify(row.input)).not.toContain(ADMIN_TOKEN);
  });
  it('refuses a wrong token with UNAUTHORIZED and audits it without the secret', async () => {
    const r = await post('auth.login', { method: 'token', token: 'wrong-token-value' });
    expect(r.status).toBe(401);
    expect(r.json.error!.data.code).toBe('UNAUTHORIZED');
    const row = (await h.audit()).at(-1)!;
    expect(row).toMatchObject({ action: 'auth.login', who: 'anonymous', result: 'error' });
    expect(JSON.stringify(row.input)).not.toContain('wrong-token-value');
  });
  it('a user session carries its role: whoami, then logout ends it', async () => {
    const { c } = client();
    expect(await c.auth.whoami.query()).toEqual({ who: null, role: null, via: null });
    const s = await c.auth.login.mutate({ method: 'password', user: 'vera', password: 'viewer-password' });
    expect(s.role).toBe('viewer');
    expect(await c.auth.whoami.query()).toMatchObject({ who: 'vera', role: 'viewer' });
    await c.auth.logout.mutate({});
    expect(await c.auth.whoami.query()).toEqual({ who: null, role: null, via: null });
  });
  it('refuses a wrong password', async () => {
    const { c } = client();
    const err = await c.auth.login.mutate({ method: 'password', user: 'vera', password: 'nope-nope' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TRPCClientError);
    expect((err as TRPCClientError<AppRouter>).data?.code).toBe('UNAUTHORIZED');
  });
});

describe('auth.permissions', () => {
  it('answers the minimum role of every procedure without a session, from the procedure metadata', async () => {
    const { c } = client();
    const p = await c.auth.permissions.query();
    expect(p['auth.login']).toBe('public');
    expect(p['functions.list']).toBe('viewer');
    expect(p['functions.rollback']).toBe('operator');
    expect(Object.values(p).every((r) => ['public', 'viewer', 'operator', 'admin'].includes(r))).toBe(true);
  });
});

describe('roles enforced on the server over HTTP', () => {
  it('a viewer gets 403 FORBIDDEN on a mutation, an operator succeeds', async () => {
    const viewer = client();
    await viewer.c.auth.login.mutate({ method: 'password', user: 'vera', password: 'viewer-password' });
    const err = (await viewer.c.functions.rollback.mutate({ name: 'web', revision: 'web-00001' }).catch((e: unknown) => e)) as TRPCClientError<AppRouter>;
    expect(err.data?.code).toBe('FORBIDDEN');
    expect(err.data?.httpStatus).toBe(403);
    const op = client();
    await op.c.auth.login.mutate({ method: 'password', user: 'otto', password: 'operator-password' });
    const saved = await op.c.functions.applyManifest.mutate({ manifest: fnManifest('web', 'export default 2') });
    expect(saved.metadata.generation).toBe(2);
  });
  it('no session → 401 on a query', async () => {
    const r = await fetch(`${base}/trpc/functions.list`);
    expect(r.status).toBe(401);
  });
  it('the admin token works as a bearer credential for automation', async () => {
    const r = await fetch(`${base}/trpc/functions.list`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(r.status).toBe(200);
  });
  it('a session id works as a bearer credential for the CLI', async () => {
    const login = await post('auth.login', { method: 'password', user: 'otto', password: 'operator-password' });
    const sid = /^orrery_session=([^;]+)/.exec(login.headers.getSetCookie()[0]!)![1]!;
    const r = await fetch(`${base}/trpc/auth.whoami`, { headers: { authorization: `Bearer ${sid}` } });
    expect(((await r.json()) as { result: { data: { who: string } } }).result.data.who).toBe('otto');
  });
});

describe('X-Orrery-Authorization (the bearer where Authorization is consumed on the way)', () => {
  const whoami = async (headers: Record<string, string>) => {
    const r = await fetch(`${base}/trpc/auth.whoami`, { headers });
    return ((await r.json()) as { result: { data: { who: string | null; role: string | null } } }).result.data;
  };
  it('carries the admin token or a session id by the same rules as the bearer', async () => {
    expect(await whoami({ 'x-orrery-authorization': `Bearer ${ADMIN_TOKEN}` })).toMatchObject({ who: 'admin-token', role: 'admin' });
    const login = await post('auth.login', { method: 'password', user: 'vera', password: 'viewer-password' });
    const sid = /^orrery_session=([^;]+)/.exec(login.headers.getSetCookie()[0]!)![1]!;
    expect(await whoami({ 'x-orrery-authorization': `Bearer ${sid}` })).toMatchObject({ who: 'vera', role: 'viewer' });
    // The session keeps its role: a viewer's mutation is refused as with Authorization.
    const r = await post('functions.traffic.set', { name: 'web', traffic: [{ latestRevision: true, percent: 100 }] }, { 'x-orrery-authorization': `Bearer ${sid}` });
    expect(r.status).toBe(403);
  });
  it('is the only credential looked at when sent: a wrong one is not rescued by a right Authorization', async () => {
    expect(await whoami({ 'x-orrery-authorization': 'Bearer wrong-token-value', authorization: `Bearer ${ADMIN_TOKEN}` })).toMatchObject({ who: null });
    expect((await fetch(`${base}/trpc/functions.list`, { headers: { 'x-orrery-authorization': 'Bearer wrong-token-value', authorization: `Bearer ${ADMIN_TOKEN}` } })).status).toBe(401);
    expect(await whoami({ 'x-orrery-authorization': `Bearer ${ADMIN_TOKEN}`, authorization: 'Bearer kube-credential' })).toMatchObject({ who: 'admin-token' });
  });
  it('does not lift the cross-origin guard: a browser POST from elsewhere is refused as with a bearer', async () => {
    const r = await post('functions.traffic.set', { name: 'web', traffic: [{ latestRevision: true, percent: 100 }] }, { 'x-orrery-authorization': `Bearer ${ADMIN_TOKEN}`, origin: 'https://evil.example' });
    expect(r.status).toBe(403);
    expect(JSON.stringify(r.json)).toContain('cross_origin');
  });
  it('a CORS preflight for it is never granted, so a page on another site cannot send it', async () => {
    const r = await fetch(`${base}/trpc/functions.traffic.set`, {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'x-orrery-authorization,content-type' },
    });
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
    expect(r.headers.get('access-control-allow-headers')).toBeNull();
  });
});

describe('HTTP errors', () => {
  it('validation errors are 400 BAD_REQUEST with paths', async () => {
    const r = await post('functions.traffic.set', { name: 'web', traffic: [{ percent: -1 }] }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(r.status).toBe(400);
    expect(r.json.error!.data.code).toBe('BAD_REQUEST');
    expect(r.json.error!.data.issues!.map((i) => i.path)).toContain('traffic[0].percent');
  });
  it('bodies over the limit are refused with 413', async () => {
    const r = await post('functions.applyManifest', { manifest: { pad: 'x'.repeat(100 * 1024) } }, { authorization: `Bearer ${ADMIN_TOKEN}` });
    expect(r.status).toBe(413);
  });
  it('paths outside the API answer 404 JSON', async () => {
    const r = await fetch(`${base}/elsewhere`);
    expect(r.status).toBe(404);
    expect(((await r.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });
  it('unknown procedures answer NOT_FOUND', async () => {
    const r = await fetch(`${base}/trpc/functions.nope`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    expect(r.status).toBe(404);
  });
});
