/**
 * Issue 20 item 3 — role escalation through annotations, attacked on a running operator: the
 * `operator` role may not ask for admin-only registry actions (remove, transfer-leader,
 * replace) by writing the `orrery.dev/requests` annotation with resources.applyManifest; the
 * refusal is audited with the action actually requested.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorCode, passwordLogin, startAdminApi, trpc, type AdminApiProcess } from './testing/admin-api-process.ts';

const OTTO = { name: 'otto', role: 'operator' as const, password: 'operator-password-1' };
let api: AdminApiProcess;
let cookie = '';

beforeAll(async () => {
  api = await startAdminApi({ users: [OTTO] });
  cookie = (await passwordLogin(api.url, OTTO.name, OTTO.password)).cookie!;
  expect(cookie).toBeTruthy();
}, 120_000);
afterAll(async () => {
  await api?.stop();
});

const cluster = (name: string, requests: unknown[]) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'RegistryCluster',
  metadata: { name, namespace: 'default', annotations: { 'orrery.dev/requests': JSON.stringify(requests) } },
  spec: { replicas: 1 },
});
const admin = () => ({ authorization: `Bearer ${api.adminToken}` });

describe('operator role and the orrery.dev/requests annotation (real operator process)', () => {
  it.each([
    ['remove', 'registry.remove'],
    ['transfer-leader', 'registry.transferLeader'],
    ['replace', 'registry.remove'],
  ])('resources.applyManifest carrying a %s request → 403 FORBIDDEN, audited as %s, nothing stored', async (action, procedure) => {
    const name = `esc-${action}`;
    const r = await trpc(api.url, 'resources.applyManifest', { mutation: true, input: { manifest: cluster(name, [{ id: `r-${action}`, action, member: `${name}-0` }]) }, headers: { cookie } });
    expect(r.status).toBe(403);
    expect(errorCode(r)).toBe('FORBIDDEN');
    expect(r.json?.error?.message).toContain(procedure);

    const audit = await trpc(api.url, 'audit.list', { input: { action: 'resources.applyManifest', target: name }, headers: admin() });
    const row = (audit.json?.result?.data as { items: Array<Record<string, unknown>> }).items[0]!;
    expect(row).toMatchObject({ who: 'otto', role: 'operator', result: 'error', target: `RegistryCluster/default/${name}` });
    expect(row.error).toMatch(new RegExp(`^FORBIDDEN: .*${procedure.replace('.', '\\.')}`));
    expect(row.after).toEqual({ requested: [{ action: procedure, via: 'metadata.annotations["orrery.dev/requests"]', detail: `${action} ${name}-0 (request r-${action})` }] });

    const stored = await trpc(api.url, 'resources.get', { input: { kind: 'RegistryCluster', name }, headers: admin() });
    expect(errorCode(stored)).toBe('NOT_FOUND');
  });

  it('hiding the request behind a malformed entry does not help', async () => {
    const r = await trpc(api.url, 'resources.applyManifest', { mutation: true, input: { manifest: cluster('esc-hidden', [{ id: 7 }, { id: 'r-x', action: 'remove', member: 'esc-hidden-0' }]) }, headers: { cookie } });
    expect(errorCode(r)).toBe('FORBIDDEN');
  });
});
