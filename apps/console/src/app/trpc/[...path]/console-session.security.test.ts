/**
 * Issue 20 item 10 — the console session, attacked through the built console in front of a real
 * operator: the cookie is Secure behind a TLS ingress the console is told to trust (and only
 * then), the login answer holds no session id, a POST from another origin is refused (403),
 * procedures take JSON only (multipart → 415), and no page may be framed (CSP frame-ancestors).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, httpRequest, sessionCookieOf, startAdminApi, trpc, type AdminApiProcess, type HttpAnswer } from '../../../../../operator/src/http/testing/admin-api-process.ts';
import type { SpawnedServer } from '../../../../../operator/src/testing/spawn-server.ts';
import { ensureConsoleBuilt, startConsole } from '../../../testing/console-process.ts';

const PROXY = '127.0.0.2'; // the "TLS ingress": loopback has all of 127/8
let api: AdminApiProcess;
let web: SpawnedServer;
let origin = '';

beforeAll(async () => {
  await ensureConsoleBuilt();
  // The operator believes the console's X-Forwarded-For (its client's address, for login limits).
  api = await startAdminApi({ args: ['--trusted-proxies', 'loopback'] });
  web = await startConsole(api.url, ['--trusted-proxies', PROXY]);
  origin = web.url;
}, 400_000);
afterAll(async () => {
  await web?.stop();
  await api?.stop();
});

const host = () => new URL(origin).host;
const login = (headers: Record<string, string>, localAddress?: string) =>
  trpc(origin, 'auth.login', { mutation: true, input: { method: 'token', token: api.adminToken }, headers: { origin, ...headers }, localAddress });
const setCookies = (a: HttpAnswer) => [a.headers['set-cookie'] ?? []].flat();

describe('the console session cookie and login answer', () => {
  it('over plain http: HttpOnly, SameSite=Strict, not Secure; the body holds no session id', async () => {
    const r = await login({});
    expect(r.status).toBe(200);
    const cookie = setCookies(r).find((c) => c.startsWith('orrery_session='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).not.toMatch(/Secure/);
    const id = sessionCookieOf(r)!.split('=')[1]!;
    expect(id.length).toBeGreaterThan(32);
    expect(r.text).not.toContain(id);
    expect(r.text).not.toMatch(/sessionId|[0-9a-f]{64}/);
    expect(r.json?.result?.data).toMatchObject({ who: 'admin-token', role: 'admin' });
  });

  it('behind the configured TLS proxy (X-Forwarded-Proto: https from it) the cookie is Secure', async () => {
    const r = await login({ 'x-forwarded-proto': 'https', 'x-forwarded-host': 'console.example', origin: 'https://console.example' }, PROXY);
    expect(r.status).toBe(200);
    expect(setCookies(r).find((c) => c.startsWith('orrery_session='))).toMatch(/; Secure/);
  });

  it('the same claim from any other peer is ignored: no Secure', async () => {
    const r = await login({ 'x-forwarded-proto': 'https' });
    expect(r.status).toBe(200);
    expect(setCookies(r).find((c) => c.startsWith('orrery_session='))).not.toMatch(/Secure/);
  });
});

describe('cross-origin and non-JSON requests', () => {
  it('a POST from another origin is refused with 403, even with a valid session cookie', async () => {
    const cookie = sessionCookieOf(await login({}))!;
    for (const headers of [{ origin: 'https://evil.example' }, { origin: 'null' }, { origin: `http://${host()}.evil.example` }]) {
      const r = await trpc(origin, 'functions.applyManifest', { mutation: true, input: { manifest: { kind: 'Function' } }, headers: { cookie, ...headers } });
      expect(r.status, headers.origin).toBe(403);
      expect(errorCode(r)).toBe('FORBIDDEN');
      expect(r.json?.error?.data?.reason).toBe('cross_origin');
    }
    const site = await trpc(origin, 'auth.logout', { mutation: true, headers: { cookie, 'sec-fetch-site': 'cross-site' } });
    expect(site.status).toBe(403);
    const same = await trpc(origin, 'auth.logout', { mutation: true, headers: { cookie, origin } });
    expect(same.status).toBe(200);
  });

  it('the operator refuses a cross-origin POST the same way', async () => {
    const r = await trpc(api.url, 'auth.login', { mutation: true, input: { method: 'token', token: api.adminToken }, headers: { origin: 'https://evil.example' } });
    expect(r.status).toBe(403);
    expect(r.json?.error?.data?.reason).toBe('cross_origin');
  });

  it.each(['operator', 'console'])('multipart/form-data (what a cross-site HTML form sends) → 415 at the %s', async (which) => {
    const base = which === 'operator' ? api.url : origin;
    const boundary = 'x-boundary';
    const body = `--${boundary}\r\nContent-Disposition: form-data; name="method"\r\n\r\ntoken\r\n--${boundary}--\r\n`;
    const r = await httpRequest(`${base}/trpc/auth.login`, { method: 'POST', headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, origin: base }, body });
    expect(r.status).toBe(415);
    expect(errorCode(r)).toBe('UNSUPPORTED_MEDIA_TYPE');
    for (const ct of ['text/plain', 'application/x-www-form-urlencoded', 'application/octet-stream']) {
      expect((await httpRequest(`${base}/trpc/auth.login`, { method: 'POST', headers: { 'content-type': ct, origin: base }, body: '{}' })).status, ct).toBe(415);
    }
  });
});

describe('framing', () => {
  it.each(['/', '/login', '/audit', '/trpc/auth.whoami'])("%s answers Content-Security-Policy frame-ancestors 'none'", async (path) => {
    const r = await httpRequest(`${origin}${path}`);
    expect(String(r.headers['content-security-policy'])).toContain("frame-ancestors 'none'");
    expect(r.headers['x-frame-options']).toBe('DENY');
  });
});

describe('login limits count the client the console saw, not the console', () => {
  it('a client behind the trusted proxy is limited by its own address; another client is not', async () => {
    const from = (client: string, i: number) =>
      trpc(origin, 'auth.login', { mutation: true, input: { method: 'password', user: `nobody-${client}-${i}`, password: 'x' }, headers: { origin, 'x-forwarded-for': client }, localAddress: PROXY });
    for (let i = 1; i <= 30; i++) expect((await from('198.51.100.1', i)).status).toBe(401);
    const limited = await from('198.51.100.1', 31);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0); // forwarded by the console
    expect((await from('198.51.100.2', 1)).status).toBe(401);
  }, 60_000);
});
