/**
 * `orrery traffic set` and `orrery rollback`: the real binary against the real admin API over an
 * embedded store — the split really changes, each change is audited under the caller, and
 * refusals say why.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrreryFunction } from '@orrery/spec';
import { startCliApi, type CliApiHarness } from '../testing/cli-api-harness.ts';

let h: CliApiHarness;
const revision = (n: number) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Revision',
  metadata: { name: `canary-0000${n}`, namespace: 'default', labels: { 'orrery.dev/function': 'canary' } },
  spec: { function: 'canary', template: { source: { inline: `export default async () => new Response("${n}")` } } },
});

beforeAll(async () => {
  h = await startCliApi();
  await h.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'canary', namespace: 'default' }, spec: { template: { source: { inline: 'export default async () => new Response("x")' } } } });
  for (const n of [1, 2]) await h.store.apply(revision(n), { allowCreateOnlyKinds: true }); // as the operator does
}, 60_000);
afterAll(() => h.close());

const traffic = async () => ((await h.store.get('Function', 'default', 'canary')) as OrreryFunction).spec.traffic;
const lastAudit = async () => (await h.audit()).at(-1)!;

describe('orrery traffic set / rollback', () => {
  it('sets a 50/50 split and prints before → after', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['traffic', 'set', 'default/canary', 'canary-00001=50,canary-00002=50']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim()).toBe('function.orrery.dev/canary traffic: latest=100% → canary-00001=50%,canary-00002=50%');
    expect(await traffic()).toEqual([
      { revisionName: 'canary-00001', percent: 50 },
      { revisionName: 'canary-00002', percent: 50 },
    ]);
    expect(await lastAudit()).toMatchObject({ action: 'functions.traffic.set', who: 'admin-token', target: 'default/canary', result: 'ok' });
  });

  it('an invalid split is refused by the API with the field and reason', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['traffic', 'set', 'canary', 'canary-00001=50']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/the traffic split is invalid/);
    expect(r.err).toMatch(/traffic: \S+ — /);
    expect(await lastAudit()).toMatchObject({ action: 'functions.traffic.set', result: 'error' });
    expect((await h.orrery(['traffic', 'set', 'canary', 'canary-00001:100'])).code).toBe(2);
  });

  it('rolls back to a revision given by number', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['rollback', 'canary', '1']);
    expect(r.code, r.err).toBe(0);
    expect(r.out.trim()).toBe('function.orrery.dev/canary rolled back to canary-00001: canary-00001=50%,canary-00002=50% → canary-00001=100%');
    expect(await traffic()).toEqual([{ revisionName: 'canary-00001', percent: 100 }]);
    expect(await lastAudit()).toMatchObject({ action: 'functions.rollback', target: 'default/canary', result: 'ok' });
  });

  it('a viewer is refused and audited; an unknown revision is NOT_FOUND', { timeout: 60_000 }, async () => {
    const viewer = await h.session('vera', 'viewer');
    const r = await h.orrery(['rollback', 'canary', 'canary-00002'], { ORRERY_API_TOKEN: viewer });
    expect(r.code).toBe(1);
    expect(r.err).toContain('the admin API refused: role viewer may not do this; it needs operator');
    expect(await lastAudit()).toMatchObject({ action: 'functions.rollback', who: 'vera', result: 'error' });
    const t = await h.orrery(['traffic', 'set', 'canary', 'canary-00002=100'], { ORRERY_API_TOKEN: viewer });
    expect(t.code).toBe(1);
    expect(await traffic()).toEqual([{ revisionName: 'canary-00001', percent: 100 }]);
    const missing = await h.orrery(['rollback', 'canary', '9']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('revision canary-00009 of function default/canary not found');
  });
});
