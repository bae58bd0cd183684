/**
 * Issue 20 item 5 on a running operator (real HTTP, Postgres audit log): a Function whose env
 * holds a plain secret value. The value must not be in any audit row, nor in anything a viewer
 * reads (functions.get/list/revisions, resources.get/list, audit.list); operators still read it.
 * Before, viewers and the audit log saw it in clear.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { passwordLogin, startAdminApi, trpc, type AdminApiProcess } from './testing/admin-api-process.ts';

const VERA = { name: 'vera', role: 'viewer' as const, password: 'viewer-password-1' };
const OTTO = { name: 'otto', role: 'operator' as const, password: 'operator-password-1' };
const PASSWORD = 'db-pass-plain-7d1c';
let api: AdminApiProcess;
const cookies: Record<string, string> = {};

const fn = {
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'shop', namespace: 'default' },
  spec: {
    template: {
      source: { inline: 'export default () => new Response("ok")' },
      env: [{ name: 'DB_PASSWORD', value: PASSWORD }, { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } }],
    },
  },
};

beforeAll(async () => {
  api = await startAdminApi({ users: [VERA, OTTO] });
  for (const u of [VERA, OTTO]) cookies[u.name] = (await passwordLogin(api.url, u.name, u.password)).cookie!;
  const applied = await trpc(api.url, 'functions.applyManifest', { mutation: true, input: { manifest: fn }, headers: { cookie: cookies.otto! } });
  expect(applied.status).toBe(200);
  // The operator makes the revision; wait for it so its template is read too.
  const end = Date.now() + 30_000;
  for (;;) {
    const revs = await trpc(api.url, 'functions.revisions', { input: { namespace: 'default', name: 'shop' }, headers: { cookie: cookies.otto! } });
    if (((revs.json?.result?.data as { items?: unknown[] })?.items ?? []).length > 0) break;
    if (Date.now() > end) throw new Error('no revision within 30 s');
    await new Promise((r) => setTimeout(r, 200));
  }
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

describe('plain env values (real operator process)', () => {
  it('are in no audit row the operator wrote to Postgres', async () => {
    const rows = await api.conn.pg!`select input, before, after from orrery_audit_log`;
    expect(rows.length).toBeGreaterThan(0);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
    expect(JSON.stringify(rows)).toContain('[redacted]');
  });

  it('are redacted in every answer a viewer gets; the Secret reference is shown', async () => {
    const calls: Array<[string, unknown]> = [
      ['functions.get', { namespace: 'default', name: 'shop' }],
      ['functions.list', { namespace: 'default' }],
      ['functions.revisions', { namespace: 'default', name: 'shop' }],
      ['resources.get', { kind: 'Function', name: 'shop' }],
      ['resources.list', { kind: 'Function' }],
      ['resources.list', { kind: 'Revision' }],
      ['audit.list', {}],
    ];
    for (const [procedure, input] of calls) {
      const r = await trpc(api.url, procedure, { input, headers: { cookie: cookies.vera! } });
      expect(r.status, procedure).toBe(200);
      expect(r.text, procedure).not.toContain(PASSWORD);
      if (procedure !== 'audit.list') expect(r.text, procedure).toContain('shop-keys');
    }
  });

  it('are shown to an operator, who may edit them', async () => {
    const r = await trpc(api.url, 'functions.get', { input: { namespace: 'default', name: 'shop' }, headers: { cookie: cookies.otto! } });
    expect(r.text).toContain(PASSWORD);
  });
});
