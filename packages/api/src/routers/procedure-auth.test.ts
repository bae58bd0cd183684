/**
 * Every procedure of the app router, walked from its own metadata, so a procedure added later is
 * covered without anyone remembering to: no session → UNAUTHORIZED, a role below the minimum →
 * FORBIDDEN, and for mutations each refusal leaves exactly one audit row with result error.
 * The refusals come before input validation, so `{}` serves as input for every procedure.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../context.ts';
import { describeProcedures } from '../describe-procedures.ts';
import { createHarness, rejection, type Harness } from '../testing/api-harness.ts';
import { appRouter } from './_app.ts';
import { procedureRoles } from './procedure-roles.ts';

const procedures = describeProcedures(appRouter);
const guarded = procedures.filter((p) => p.role !== 'public');
const BELOW: Partial<Record<string, Role>> = { operator: 'viewer', admin: 'operator' };

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
}, 60_000);
afterAll(() => h.close());

/** Calls `path` (e.g. `functions.traffic.set`) on a caller acting as `role`. */
function call(role: Role | undefined, path: string): Promise<unknown> {
  const fn = path.split('.').reduce<unknown>((node, key) => (node as Record<string, unknown>)[key], h.as(role, role ? `${role}-matrix` : undefined));
  return (fn as (input: unknown) => Promise<unknown>)({});
}

async function expectRefusal(role: Role | undefined, path: string, mutation: boolean, code: 'UNAUTHORIZED' | 'FORBIDDEN'): Promise<void> {
  const before = (await h.audit()).length;
  expect((await rejection(call(role, path))).code, path).toBe(code);
  const rows = await h.audit();
  if (!mutation) {
    expect(rows.length, `${path} is a query: not audited`).toBe(before);
    return;
  }
  expect(rows.length, `${path} writes one audit row for the refusal`).toBe(before + 1);
  expect(rows.at(-1), path).toMatchObject({ action: path, result: 'error', who: role ? `${role}-matrix` : 'anonymous', role: role ?? 'none' });
  expect(rows.at(-1)!.error, path).toMatch(new RegExp(`^${code}`));
}

describe('every procedure of the app router', () => {
  it('has a known minimum role; only login and the two session reads are public', () => {
    expect(guarded.length).toBeGreaterThan(25);
    for (const p of procedures) expect(['public', 'viewer', 'operator', 'admin'], p.path).toContain(p.role);
    expect(procedures.filter((p) => p.role === 'public').map((p) => p.path)).toEqual(['auth.login', 'auth.permissions', 'auth.whoami']);
  });

  it('admin is its own role: destructive and quorum-affecting actions need it (and auth.permissions says so)', () => {
    const admin = procedures.filter((p) => p.role === 'admin').map((p) => p.path);
    expect(admin).toEqual(['functions.delete', 'registry.forcePromote', 'registry.remove', 'registry.scale', 'registry.transferLeader', 'resources.delete']);
    const roles = procedureRoles();
    for (const path of admin) expect(roles[path], path).toBe('admin');
    for (const path of ['functions.applyManifest', 'functions.traffic.set', 'functions.rollback', 'registry.addLearner', 'registry.promote', 'resources.applyManifest']) expect(roles[path], path).toBe('operator');
  });

  it.each(guarded.map((p) => [p.path, p] as const))('%s: no session → UNAUTHORIZED', async (path, p) => {
    await expectRefusal(undefined, path, p.type === 'mutation', 'UNAUTHORIZED');
  });

  // A viewer may change nothing but its own session.
  it.each(procedures.filter((p) => p.type === 'mutation' && p.role !== 'public' && p.path !== 'auth.logout').map((p) => [p.path, p] as const))(
    '%s: a viewer → FORBIDDEN, audited',
    async (path) => {
      await expectRefusal('viewer', path, true, 'FORBIDDEN');
    },
  );

  it.each(guarded.filter((p) => p.role === 'admin').map((p) => [p.path, p] as const))('%s: an operator (one role below) → FORBIDDEN, audited', async (path, p) => {
    await expectRefusal(BELOW[p.role], path, p.type === 'mutation', 'FORBIDDEN');
  });
});
