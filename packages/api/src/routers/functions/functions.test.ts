import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrreryFunction, ResourceKind } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { createHarness, fnManifest, rejection, revisionManifest, type Harness } from '../../testing/api-harness.ts';
import { issuesOf } from '../../errors.ts';

let h: Harness;
beforeAll(async () => {
  h = await createHarness();
  await h.store.apply(fnManifest('counter'));
  await h.store.apply(revisionManifest('counter', 1), { allowCreateOnlyKinds: true }); // as the operator does
  await h.store.apply(revisionManifest('counter', 2), { allowCreateOnlyKinds: true }); // as the operator does
  await h.store.apply(revisionManifest('other', 1), { allowCreateOnlyKinds: true }); // as the operator does
}, 60_000);
afterAll(() => h.close());

const lastAudit = async () => (await h.audit()).at(-1)!;

describe('functions.list / get / revisions (viewer)', () => {
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).functions.list())).code).toBe('UNAUTHORIZED');
  });
  it('lists and gets for a viewer', async () => {
    const r = await h.as('viewer').functions.list({ namespace: 'default' });
    expect(r.items.map((f) => f.metadata.name)).toContain('counter');
    const fn = await h.as('viewer').functions.get({ name: 'counter' });
    expect(fn.metadata.namespace).toBe('default');
    expect((await rejection(h.as('viewer').functions.get({ name: 'nope' }))).code).toBe('NOT_FOUND');
  });
  it('returns only the function’s revisions, oldest first', async () => {
    const r = await h.as('viewer').functions.revisions({ name: 'counter' });
    expect(r.items.map((x) => x.metadata.name)).toEqual(['counter-00001', 'counter-00002']);
  });
  it('validates input with paths', async () => {
    const err = await rejection(h.as('viewer').functions.get({ name: 'Bad_Name' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('name');
  });
});

describe('functions.applyManifest (operator)', () => {
  it('creates a function, audits it, and the store has it', async () => {
    const saved = await h.as('operator', 'olga').functions.applyManifest({ manifest: fnManifest('fresh') });
    expect(saved.metadata.generation).toBe(1);
    expect(await h.store.get('Function', 'default', 'fresh')).toBeDefined();
    const row = await lastAudit();
    expect(row).toMatchObject({ who: 'olga', role: 'operator', action: 'functions.applyManifest', target: 'default/fresh', result: 'ok' });
  });
  it('is forbidden for a viewer and audited as an error', async () => {
    const err = await rejection(h.as('viewer', 'vic').functions.applyManifest({ manifest: fnManifest('nope') }));
    expect(err.code).toBe('FORBIDDEN');
    expect(await h.store.get('Function', 'default', 'nope')).toBeUndefined();
    expect(await lastAudit()).toMatchObject({ who: 'vic', action: 'functions.applyManifest', target: 'default/nope', result: 'error' });
    expect((await lastAudit()).error).toMatch(/^FORBIDDEN/);
  });
  it('rejects an invalid manifest with spec paths and audits the failure', async () => {
    const bad = fnManifest('broken', 'x', { traffic: [{ latestRevision: true, percent: 90 }] });
    const err = await rejection(h.as('operator').functions.applyManifest({ manifest: bad }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)!.map((i) => i.path)).toContain('manifest.spec.traffic');
    expect(await lastAudit()).toMatchObject({ action: 'functions.applyManifest', target: 'default/broken', result: 'error' });
  });
  it('refuses a stale resourceVersion with CONFLICT', async () => {
    const a = await h.as('operator').functions.applyManifest({ manifest: fnManifest('cas') });
    await h.as('operator').functions.applyManifest({ manifest: fnManifest('cas', 'export default 2') });
    const err = await rejection(h.as('operator').functions.applyManifest({ manifest: fnManifest('cas', 'x'), resourceVersion: a.metadata.resourceVersion }));
    expect(err.code).toBe('CONFLICT');
  });
  it('audits an unauthenticated attempt as anonymous', async () => {
    expect((await rejection(h.as(undefined).functions.applyManifest({ manifest: fnManifest('anon') }))).code).toBe('UNAUTHORIZED');
    expect(await lastAudit()).toMatchObject({ who: 'anonymous', role: 'none', result: 'error' });
  });
});

describe('functions.traffic.set (operator)', () => {
  it('sets a 50/50 split, records before/after', async () => {
    const fn = await h.as('operator').functions.traffic.set({
      name: 'counter',
      traffic: [
        { revisionName: 'counter-00001', percent: 50 },
        { revisionName: 'counter-00002', percent: 50, tag: 'canary' },
      ],
    });
    expect(fn.spec.traffic.map((t) => t.percent)).toEqual([50, 50]);
    const stored = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    expect(stored.spec.traffic[1]!.tag).toBe('canary');
    const row = await lastAudit();
    expect(row).toMatchObject({ action: 'functions.traffic.set', target: 'default/counter', result: 'ok' });
    expect(row.after).toEqual({ traffic: stored.spec.traffic });
  });
  it('rejects percents that do not sum to 100 (validated by @orrery/spec) with a path', async () => {
    const err = await rejection(h.as('operator').functions.traffic.set({ name: 'counter', traffic: [{ revisionName: 'counter-00001', percent: 70 }] }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)![0]!.path).toMatch(/^traffic/);
    expect(await lastAudit()).toMatchObject({ action: 'functions.traffic.set', result: 'error' });
  });
  it('rejects an out-of-range percent at the input schema with its path', async () => {
    const err = await rejection(h.as('operator').functions.traffic.set({ name: 'counter', traffic: [{ revisionName: 'counter-00001', percent: 170 }] }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)![0]!.path).toBe('traffic[0].percent');
    expect(await lastAudit()).toMatchObject({ action: 'functions.traffic.set', result: 'error', target: 'default/counter' });
  });
  it('is forbidden for a viewer', async () => {
    expect((await rejection(h.as('viewer').functions.traffic.set({ name: 'counter', traffic: [] }))).code).toBe('FORBIDDEN');
  });
  it('with the generation read: a status update meanwhile is no conflict, a spec change is (the resourceVersion refuses both)', async () => {
    const split = (a: number) => [
      { revisionName: 'counter-00001', percent: a },
      { revisionName: 'counter-00002', percent: 100 - a },
    ];
    const read = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    // The operator writes status (resourceVersion moves, generation does not).
    await h.store.updateStatus('Function', 'default', 'counter', { ...read.status, observedGeneration: read.metadata.generation });
    const byRv = await rejection(h.as('operator').functions.traffic.set({ name: 'counter', traffic: split(30), resourceVersion: read.metadata.resourceVersion }));
    expect(byRv.code).toBe('CONFLICT');
    const saved = await h.as('operator').functions.traffic.set({ name: 'counter', traffic: split(30), generation: read.metadata.generation });
    expect(saved.spec.traffic.map((t) => t.percent)).toEqual([30, 70]);
    // That write changed the spec: the same (now stale) generation is refused and nothing changes.
    const stale = await rejection(h.as('operator').functions.traffic.set({ name: 'counter', traffic: split(80), generation: read.metadata.generation }));
    expect(stale.code).toBe('CONFLICT');
    expect(stale.message).toMatch(/changed since you read it \(generation \d+, now \d+\); reload and retry/);
    expect(((await h.store.get('Function', 'default', 'counter')) as OrreryFunction).spec.traffic.map((t) => t.percent)).toEqual([30, 70]);
    // rollback takes the generation too.
    const rolled = await h.as('operator').functions.rollback({ name: 'counter', revision: 'counter-00002', generation: saved.metadata.generation });
    expect(rolled.spec.traffic).toEqual([{ revisionName: 'counter-00002', percent: 100 }]);
  });
});

describe('functions.traffic.set beside a busy operator', () => {
  const extra: Harness[] = [];
  afterAll(async () => {
    for (const x of extra) await x.store.close(); // the connection is h's
  });
  const harness = async (store: ResourceStore) => {
    const x = await createHarness({ store }, h.conn);
    extra.push(x);
    return x;
  };
  // A store whose Function reads are each followed by a status write (as the operator's are, any
  // time): the handler's own write then meets a moved resourceVersion.
  const racing = (writesLeft: { n: number }): ResourceStore =>
    new Proxy(h.store, {
      get(target, prop, receiver) {
        if (prop !== 'get') return Reflect.get(target, prop, receiver) as unknown;
        return async (kind: ResourceKind, namespace: string, name: string) => {
          const got = (await target.get(kind, namespace, name)) as OrreryFunction | undefined;
          if (got && kind === 'Function' && writesLeft.n-- > 0) await target.updateStatus('Function', namespace, name, { ...got.status, observedGeneration: got.metadata.generation, url: `http://router/${writesLeft.n}` });
          return got;
        };
      },
    });
  const split = (a: number) => [
    { revisionName: 'counter-00001', percent: a },
    { revisionName: 'counter-00002', percent: 100 - a },
  ];

  it('with a generation: status writes between its read and its write are read again, not a conflict', async () => {
    const racy = await harness(racing({ n: 2 }));
    const read = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    const saved = await racy.as('operator').functions.traffic.set({ name: 'counter', traffic: split(40), generation: read.metadata.generation });
    expect(saved.spec.traffic.map((t) => t.percent)).toEqual([40, 60]);
    expect(saved.status?.url).toBe('http://router/0'); // the write kept the status written meanwhile
  });

  it('gives up with CONFLICT when status writes never stop, and without a generation at once', async () => {
    const busy = await harness(racing({ n: 100 }));
    const read = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    const err = await rejection(busy.as('operator').functions.traffic.set({ name: 'counter', traffic: split(10), generation: read.metadata.generation }));
    expect(err.code).toBe('CONFLICT');
    const once = await harness(racing({ n: 1 }));
    const now = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    const byRv = await rejection(once.as('operator').functions.traffic.set({ name: 'counter', traffic: split(10), resourceVersion: now.metadata.resourceVersion }));
    expect(byRv.code).toBe('CONFLICT');
    expect(((await h.store.get('Function', 'default', 'counter')) as OrreryFunction).spec.traffic.map((t) => t.percent)).toEqual([40, 60]);
  });
});

describe('functions.rollback (operator)', () => {
  it('sends 100 % to the chosen revision', async () => {
    const fn = await h.as('admin').functions.rollback({ name: 'counter', revision: 'counter-00001' });
    expect(fn.spec.traffic).toEqual([{ revisionName: 'counter-00001', percent: 100 }]);
    expect(await lastAudit()).toMatchObject({ action: 'functions.rollback', result: 'ok' });
  });
  it('refuses a revision of another function', async () => {
    expect((await rejection(h.as('operator').functions.rollback({ name: 'counter', revision: 'other-00001' }))).code).toBe('NOT_FOUND');
    expect(await lastAudit()).toMatchObject({ action: 'functions.rollback', result: 'error' });
  });
  it('is forbidden for a viewer, leaves the split alone, and audits the refusal', async () => {
    const before = (await h.store.get('Function', 'default', 'counter')) as OrreryFunction;
    const err = await rejection(h.as('viewer', 'vic').functions.rollback({ name: 'counter', revision: 'counter-00002' }));
    expect(err.code).toBe('FORBIDDEN');
    expect(((await h.store.get('Function', 'default', 'counter')) as OrreryFunction).spec.traffic).toEqual(before.spec.traffic);
    const row = await lastAudit();
    expect(row).toMatchObject({ who: 'vic', role: 'viewer', action: 'functions.rollback', target: 'default/counter', result: 'error' });
    expect(row.error).toMatch(/^FORBIDDEN/);
  });
  it('refuses bad input with the zod path, audited', async () => {
    const err = await rejection(h.as('operator').functions.rollback({ name: 'counter', revision: 'Not_A_Revision' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('revision');
    expect(await lastAudit()).toMatchObject({ action: 'functions.rollback', target: 'default/counter', result: 'error' });
    const missing = await rejection(h.as('operator').functions.rollback({ name: 'counter' } as never));
    expect(issuesOf(missing.cause)?.[0]?.path).toBe('revision');
  });
});

describe('functions.rollback to a revision whose package build failed', () => {
  const sha = (c: string) => c.repeat(64);
  const pkgRevision = (n: number, sha256: string) => {
    const r = revisionManifest('pkg', n);
    return { ...r, spec: { ...r.spec, template: { source: { package: { sha256 } } } } };
  };
  const failedBuild = { sha256: sha('c'), key: sha('d'), builder: 'node npm v20', phase: 'Failed', reason: 'DependenciesFailed', message: 'npm exited with code 1' };
  beforeAll(async () => {
    await h.store.apply(fnManifest('pkg', undefined, { template: { source: { package: { sha256: sha('c') } } } }));
    for (const [n, digest] of [[1, sha('a')], [2, sha('b')], [3, sha('c')]] as const) await h.store.apply(pkgRevision(n, digest), { allowCreateOnlyKinds: true });
    // -00002's Ready says its build failed; -00003 is the current template, whose failed build only status.build reports so far.
    await h.store.updateStatus('Revision', 'default', 'pkg-00002', { conditions: [{ type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'package bbbbbbbbbbbb: Failed (MainMissing)' }] });
    await h.store.updateStatus('Function', 'default', 'pkg', { build: failedBuild });
    await h.as('operator').functions.rollback({ name: 'pkg', revision: 'pkg-00001' });
  });

  it('functions.revisions names the revisions that can never serve, with why', async () => {
    const r = await h.as('viewer').functions.revisions({ name: 'pkg' });
    expect(r.items.map((x) => x.metadata.name)).toEqual(['pkg-00001', 'pkg-00002', 'pkg-00003']);
    expect(r.notRunnable).toEqual({
      'pkg-00002': { reason: 'build_failed', message: 'its package build failed (package bbbbbbbbbbbb: Failed (MainMissing))' },
      'pkg-00003': { reason: 'build_failed', message: 'its package build failed (package cccccccccccc: DependenciesFailed: npm exited with code 1)' },
    });
  });

  it('refuses with 400 revision_not_runnable, leaves the split alone and audits the refusal', async () => {
    for (const revision of ['pkg-00002', 'pkg-00003']) {
      const err = await rejection(h.as('operator', 'olga').functions.rollback({ name: 'pkg', revision }));
      expect(err.code).toBe('BAD_REQUEST');
      expect(err.message).toMatch(new RegExp(`^revision_not_runnable: ${revision} can never serve traffic: its package build failed`));
      expect(issuesOf(err.cause)).toEqual([{ path: 'revision', message: err.message, reason: 'revision_not_runnable' }]);
      expect(((await h.store.get('Function', 'default', 'pkg')) as OrreryFunction).spec.traffic).toEqual([{ revisionName: 'pkg-00001', percent: 100 }]);
      expect(await lastAudit()).toMatchObject({ who: 'olga', action: 'functions.rollback', target: 'default/pkg', result: 'error' });
    }
  });

  it('rolls back to a revision that built', async () => {
    await h.as('operator').functions.traffic.set({ name: 'pkg', traffic: [{ latestRevision: true, percent: 100 }] });
    const fn = await h.as('operator').functions.rollback({ name: 'pkg', revision: 'pkg-00001' });
    expect(fn.spec.traffic).toEqual([{ revisionName: 'pkg-00001', percent: 100 }]);
  });
});

describe('functions.delete (admin)', () => {
  it('deletes and audits; a second delete is NOT_FOUND', async () => {
    await h.as('operator').functions.applyManifest({ manifest: fnManifest('doomed') });
    expect(await h.as('admin').functions.delete({ name: 'doomed' })).toEqual({ deleted: true });
    expect(await h.store.get('Function', 'default', 'doomed')).toBeUndefined();
    expect(await lastAudit()).toMatchObject({ action: 'functions.delete', target: 'default/doomed', result: 'ok' });
    expect((await rejection(h.as('admin').functions.delete({ name: 'doomed' }))).code).toBe('NOT_FOUND');
  });
  it('is forbidden for a viewer', async () => {
    expect((await rejection(h.as('viewer').functions.delete({ name: 'counter' }))).code).toBe('FORBIDDEN');
    expect(await h.store.get('Function', 'default', 'counter')).toBeDefined();
  });
  it('is forbidden for an operator (admin only) and the refusal is audited', async () => {
    const err = await rejection(h.as('operator', 'otto').functions.delete({ name: 'counter' }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toMatch(/role operator may not do this; it needs admin/);
    expect(await h.store.get('Function', 'default', 'counter')).toBeDefined();
    expect(await lastAudit()).toMatchObject({ who: 'otto', action: 'functions.delete', target: 'default/counter', result: 'error' });
  });
  it('refuses bad input with the zod path', async () => {
    const err = await rejection(h.as('admin').functions.delete({ name: 'counter', resourceVersion: 'latest' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('resourceVersion');
    expect(await h.store.get('Function', 'default', 'counter')).toBeDefined();
  });
});
