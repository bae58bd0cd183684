/**
 * Issue 20 item 4 — the users file is authoritative, attacked on a running operator: a user
 * removed from the file loses its live session at its very next call and cannot log in again;
 * lowering a role shrinks what the user may do at once (its session ends; a new login gets the
 * lower role). No restart, no wait.
 */
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, passwordLogin, startAdminApi, trpc, type AdminApiProcess, type TestUser } from './testing/admin-api-process.ts';

const VERA: TestUser = { name: 'vera', role: 'viewer', password: 'viewer-password-1' };
const OTTO: TestUser = { name: 'otto', role: 'operator', password: 'operator-password-1' };
let api: AdminApiProcess;

beforeAll(async () => {
  api = await startAdminApi({ users: [VERA, OTTO] });
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

const fn = (name: string) => ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace: 'default' }, spec: { template: { source: { inline: 'export default async () => new Response("x")' } } } });

describe('users file changes take effect at the next request (real operator process)', () => {
  it('a removed user: the next call with its session is UNAUTHORIZED and login fails', async () => {
    const { cookie } = await passwordLogin(api.url, VERA.name, VERA.password);
    expect((await trpc(api.url, 'functions.list', { headers: { cookie: cookie! } })).status).toBe(200);

    await api.writeUsers([OTTO]);

    const after = await trpc(api.url, 'functions.list', { headers: { cookie: cookie! } });
    expect(after.status).toBe(401);
    expect(errorCode(after)).toBe('UNAUTHORIZED');
    const again = await passwordLogin(api.url, VERA.name, VERA.password);
    expect(again.answer.status).toBe(401);
    expect(again.cookie).toBeUndefined();
  });

  it('a lowered role: permissions shrink at once (the session ends; a new login has the lower role)', async () => {
    const { cookie } = await passwordLogin(api.url, OTTO.name, OTTO.password);
    const ok = await trpc(api.url, 'functions.applyManifest', { mutation: true, input: { manifest: fn('before-demotion') }, headers: { cookie: cookie! } });
    expect(ok.status).toBe(200);

    await api.writeUsers([{ ...OTTO, role: 'viewer' }]);

    const refused = await trpc(api.url, 'functions.applyManifest', { mutation: true, input: { manifest: fn('after-demotion') }, headers: { cookie: cookie! } });
    expect(refused.status).toBe(401);
    const relogin = await passwordLogin(api.url, OTTO.name, OTTO.password);
    expect(relogin.answer.json?.result?.data).toMatchObject({ who: 'otto', role: 'viewer' });
    const asViewer = await trpc(api.url, 'functions.applyManifest', { mutation: true, input: { manifest: fn('after-demotion') }, headers: { cookie: relogin.cookie! } });
    expect(asViewer.status).toBe(403);
    expect(errorCode(asViewer)).toBe('FORBIDDEN');
  });

  it('a user added to the file can log in without a restart', async () => {
    const NEW: TestUser = { name: 'nia', role: 'operator', password: 'new-user-password' };
    expect((await passwordLogin(api.url, NEW.name, NEW.password)).answer.status).toBe(401);
    await api.writeUsers([{ ...OTTO, role: 'viewer' }, NEW]);
    const login = await passwordLogin(api.url, NEW.name, NEW.password);
    expect(login.answer.json?.result?.data).toMatchObject({ who: 'nia', role: 'operator' });
  });

  it('a broken line after start locks that user out (fail closed) and names the line in the log', async () => {
    const { cookie } = await passwordLogin(api.url, 'nia', 'new-user-password');
    expect(cookie).toBeTruthy();
    writeFileSync(api.usersFile, 'nia:operator:not-a-hash\n'); // in place, not by rename
    expect((await trpc(api.url, 'functions.list', { headers: { cookie: cookie! } })).status).toBe(401);
    expect(api.op.output()).toContain('line 1: the third field must be a scrypt hash');
    expect(api.op.output()).not.toMatch(/scrypt\$16384\$8\$1\$[0-9a-f]{32}\$/); // no hash in the log
  });
});
