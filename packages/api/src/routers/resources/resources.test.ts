import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, fnManifest, rejection, revisionManifest, type Harness } from '../../testing/api-harness.ts';
import { issuesOf } from '../../errors.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.store.apply(fnManifest('web'));
  await h.store.apply(revisionManifest('web', 1), { allowCreateOnlyKinds: true }); // as the operator does
}, 60_000);
afterAll(() => h.close());

const lastAudit = async () => (await h.audit()).at(-1)!;
const env = (poolSize: number) => ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs' }, spec: { image: 'orrery/runtime-node:latest', poolSize } });

describe('resources.list / get (viewer)', () => {
  it('lists any kind, one namespace or all', async () => {
    expect((await h.as('viewer').resources.list({ kind: 'Revision' })).items.map((r) => r.metadata.name)).toEqual(['web-00001']);
    expect((await h.as('viewer').resources.list({ kind: 'Function', namespace: 'other' })).items).toEqual([]);
  });
  it('gets one object or answers NOT_FOUND', async () => {
    expect((await h.as('viewer').resources.get({ kind: 'Function', name: 'web' })).metadata.namespace).toBe('default');
    expect((await rejection(h.as('viewer').resources.get({ kind: 'Function', name: 'nope' }))).code).toBe('NOT_FOUND');
  });
  it('refuses an unknown kind with the list of kinds', async () => {
    const err = await rejection(h.as('viewer').resources.list({ kind: 'Pod' as never }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.message).toMatch(/Function, Revision, Environment/);
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).resources.list({ kind: 'Function' }))).code).toBe('UNAUTHORIZED');
  });
});

describe('resources.applyManifest / delete (operator, audited)', () => {
  it('creates, reports unchanged, then configured, with an audit row each', async () => {
    expect((await h.as('operator').resources.applyManifest({ manifest: env(2) })).outcome).toBe('created');
    expect((await h.as('operator').resources.applyManifest({ manifest: env(2) })).outcome).toBe('unchanged');
    const r = await h.as('operator').resources.applyManifest({ manifest: env(3) });
    expect(r.outcome).toBe('configured');
    expect(r.object.metadata.generation).toBe(2);
    expect(await lastAudit()).toMatchObject({ action: 'resources.applyManifest', target: 'Environment/default/nodejs', result: 'ok', who: 'operator-user' });
  });
  it('refuses Revisions and invalid manifests with field paths', async () => {
    const rev = await rejection(h.as('operator').resources.applyManifest({ manifest: revisionManifest('web', 2) }));
    expect(rev.code).toBe('BAD_REQUEST');
    expect(rev.message).toMatch(/made by the operator/);
    const bad = await rejection(h.as('operator').resources.applyManifest({ manifest: env(-1) }));
    expect(bad.code).toBe('BAD_REQUEST');
    expect(issuesOf(bad.cause)?.[0]?.path).toMatch(/^manifest\.spec\.poolSize/);
    expect(await lastAudit()).toMatchObject({ action: 'resources.applyManifest', result: 'error' });
  });
  it('a viewer is refused and the refusal is audited', async () => {
    expect((await rejection(h.as('viewer').resources.applyManifest({ manifest: env(4) }))).code).toBe('FORBIDDEN');
    expect(await lastAudit()).toMatchObject({ action: 'resources.applyManifest', who: 'viewer-user', result: 'error' });
    expect((await h.store.get('Environment', 'default', 'nodejs'))?.spec).toMatchObject({ poolSize: 3 });
  });
  it('delete is admin only: an operator is refused and audited', async () => {
    const err = await rejection(h.as('operator', 'otto').resources.delete({ kind: 'Environment', name: 'nodejs' }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toMatch(/it needs admin/);
    expect(await h.store.get('Environment', 'default', 'nodejs')).toBeDefined();
    expect(await lastAudit()).toMatchObject({ action: 'resources.delete', who: 'otto', result: 'error' });
  });
  it('deletes idempotently; Revisions go with their Function', async () => {
    expect(await h.as('admin').resources.delete({ kind: 'Environment', name: 'nodejs' })).toEqual({ deleted: true });
    expect(await h.as('admin').resources.delete({ kind: 'Environment', name: 'nodejs' })).toEqual({ deleted: false });
    expect((await rejection(h.as('admin').resources.delete({ kind: 'Revision', name: 'web-00001' }))).code).toBe('BAD_REQUEST');
    expect(await lastAudit()).toMatchObject({ action: 'resources.delete', target: 'Revision/default/web-00001', result: 'error' });
  });
});

describe('resources.applyManifest of a RegistryCluster (replicas need admin, like registry.scale)', () => {
  const rc = (replicas?: number) => ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'quorum' }, spec: replicas === undefined ? {} : { replicas } });
  it('an operator may create one and re-apply it with the same count', async () => {
    expect((await h.as('operator').resources.applyManifest({ manifest: rc(3) })).outcome).toBe('created');
    expect((await h.as('operator').resources.applyManifest({ manifest: rc() })).outcome).toBe('unchanged'); // 3 is the default
  });
  it('an operator may not change the voter count; the refusal is audited', async () => {
    const err = await rejection(h.as('operator', 'otto').resources.applyManifest({ manifest: rc(1) }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toMatch(/may not request registry\.scale through spec\.replicas of RegistryCluster quorum \(3 → 1\); it needs admin/);
    expect(await lastAudit()).toMatchObject({ action: 'resources.applyManifest', who: 'otto', target: 'RegistryCluster/default/quorum', result: 'error' });
    expect((await h.store.get('RegistryCluster', 'default', 'quorum'))?.spec).toMatchObject({ replicas: 3 });
  });
  it('an admin may', async () => {
    expect((await h.as('admin').resources.applyManifest({ manifest: rc(5) })).outcome).toBe('configured');
  });
});
