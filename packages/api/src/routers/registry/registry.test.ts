import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REGISTRY_CLUSTER_REQUESTS_ANNOTATION, parseRegistryClusterRequests, type RegistryCluster } from '@orrery/spec';
import { issuesOf } from '../../errors.ts';
import { applyRouterStateSync, createHarness, rejection, type Harness } from '../../testing/api-harness.ts';

let h: Harness;
let fakeRegistry: Server;
let registryUrl: string;
const seenQueries: string[] = [];

const member = (n: number, extra: Record<string, unknown> = {}) => ({
  id: `id${n}`,
  name: `reg-${n}`,
  role: 'voter',
  isLeader: n === 1,
  raftTerm: 2,
  raftIndex: 100,
  raftAppliedIndex: 100 - n,
  health: 'healthy',
  ...extra,
});

/** The operator's poll `poll` of learner reg-4 at applied index `applied`, leader reg-1 at committed 100 (or `committed`). */
const look = (poll: number, applied: number, over: Record<string, unknown> = {}) => ({
  member: 'reg-4',
  healthy: true,
  appliedIndex: applied,
  leader: 'reg-1',
  leaderTerm: 2,
  leaderCommittedIndex: 100,
  observedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 2 * poll)).toISOString(),
  ...over,
});

beforeAll(async () => {
  // Stand-in for the registry's public API (instances query): starting etcd + a registry here
  // would cost most of this package's test budget; apps/registry tests the real grammar.
  fakeRegistry = createServer((req, res) => {
    seenQueries.push(req.url!);
    const q = new URL(req.url!, 'http://x').searchParams;
    if (q.getAll('selector').some((s) => s.includes('in v2'))) {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ code: 'bad_request', message: 'invalid selector "version in v2": expected values like (v1,v2)' }));
      return;
    }
    // An instance as the registry's contract (@orrery/spec RegistryInstance) has it; namespace "skewed" gets a partial one.
    const instance = {
      namespace: 'prod',
      service: 'a.b.c.d.api',
      organization: 'a',
      businessDomain: 'b',
      capabilityDomain: 'c',
      application: 'd',
      role: 'api',
      instanceId: 'i1',
      zone: '',
      labels: { color: 'gray' },
      metadata: {},
      endpoints: [{ name: 'http', protocol: 'http', host: '10.0.0.1', port: 8080, weight: 100 }],
      leaseTtlSeconds: 30,
      revision: 7,
      createRevision: 7,
      leaseId: '1a',
    };
    const instances = q.get('namespace') === 'skewed' ? [{ service: 'a.b.c.d.api', instanceId: 'i1' }] : [instance];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ code: 'ok', message: '', data: { revision: 7, instances }, requestId: 'r1' }));
  });
  await new Promise<void>((r) => fakeRegistry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(fakeRegistry.address() as AddressInfo).port}`;
  h = await createHarness();
  await h.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: 'default' }, spec: { replicas: 3 } });
  await h.store.updateStatus('RegistryCluster', 'default', 'reg', {
    members: [member(1), member(2), member(3), member(4, { role: 'learner', raftAppliedIndex: 95 })],
    leader: 'reg-1',
    endpoint: registryUrl,
    handledRequests: ['old-1'],
    // The operator's last two polls of the learner: caught up in both (the promotion rule passes).
    learnerObservations: [look(1, 94), look(2, 95)],
  });
  await applyRouterStateSync(h, {
    replicas: [
      { replica: 'router-a', lastSuccessfulCycle: '2026-01-01T00:00:00Z', entitiesPushed: 3, entitiesPulled: 4, backoffSeconds: 0 },
      // One failed cycle doubles the wait past the 10 s period.
      { replica: 'router-b', entitiesPushed: 0, entitiesPulled: 0, lastError: 'ECONNREFUSED', backoffSeconds: 20 },
    ],
  });
}, 60_000);
afterAll(async () => {
  await h.close();
  await new Promise<void>((r) => fakeRegistry.close(() => r()));
});

const cluster = async () => (await h.store.get('RegistryCluster', 'default', 'reg')) as RegistryCluster;
const lastAudit = async () => (await h.audit()).at(-1)!;

describe('registry.clusters / members (viewer)', () => {
  it('summarises clusters from the store', async () => {
    const r = await h.as('viewer').registry.clusters();
    expect(r.items).toEqual([expect.objectContaining({ name: 'reg', replicas: 3, leader: 'reg-1', voters: 3, learners: 1, healthy: 4 })]);
    // the health rule's verdict (no conditions written in this fixture: the operator has not reconciled it)
    expect(r.items[0]).toMatchObject({ health: 'Unknown', message: 'no conditions yet (the operator has not reconciled it)' });
  });
  it('lists members with lag behind the leader', async () => {
    const r = await h.as('viewer').registry.members({ cluster: 'reg' });
    expect(r.members.find((m) => m.name === 'reg-4')!.lag).toBe(5);
    // a learner carries the promotion rule's verdict; voters none
    expect(r.members.find((m) => m.name === 'reg-4')!.promotion).toMatchObject({ ready: true, lag: 5, appliedIndex: 95, committedIndex: 100, polls: 2, required: 2, lagText: '5 entries behind', pollsText: 'caught up in 2 of 2 polls' });
    // what the console shows without a rule of its own: cluster health, quorum, each action's effect, member badges
    expect(r.health.health).toBe('Unknown');
    expect(r.quorum).toEqual({ voters: 3, healthyVoters: 3, quorum: 2, tolerates: 1 });
    expect(r.addLearner).toEqual({
      effect: expect.objectContaining({ summary: '3 voters → quorum 2; adding a learner keeps 3 voters, quorum 2, tolerates 1 failure (a learner replicates but does not vote)' }) as unknown,
      unavailable: 'one learner at a time: reg-4 is still a learner (promote or remove it first)',
    });
    const reg4 = r.members.find((m) => m.name === 'reg-4')!;
    expect(reg4.actions.promote).toMatchObject({ effect: { votersAfter: 4, quorumAfter: 3, warning: expect.stringContaining('even number') as unknown }, unavailable: null });
    expect(reg4.actions.forcePromote).toBeNull();
    expect(reg4.actions.transferLeader).toBeNull();
    const reg2 = r.members.find((m) => m.name === 'reg-2')!;
    expect(reg2.actions).toMatchObject({ promote: null, remove: { effect: { votersAfter: 2, warning: 'afterwards one more failure stops writes' }, unavailable: null }, transferLeader: { effect: { votersAfter: 3 } } });
    expect(reg2.healthVerdict).toEqual({ health: 'Healthy', message: 'answered its status call' });
    expect(r.members.find((m) => m.name === 'reg-2')!.promotion).toBeNull();
    expect(r.leader).toBe('reg-1');
    expect((await rejection(h.as('viewer').registry.members({ cluster: 'none' }))).code).toBe('NOT_FOUND');
    expect((await rejection(h.as(undefined).registry.members({ cluster: 'reg' }))).code).toBe('UNAUTHORIZED');
  });
  it('refuses bad input with the zod path', async () => {
    const err = await rejection(h.as('viewer').registry.members({ cluster: 'Reg_1' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('cluster');
  });
  it('clusters needs a session', async () => {
    expect((await rejection(h.as(undefined).registry.clusters())).code).toBe('UNAUTHORIZED');
  });
});

describe('registry.instances (viewer; registry API stood in by a local HTTP server)', () => {
  it('passes the selector grammar through', async () => {
    const r = await h.as('viewer').registry.instances({ cluster: 'reg', registryNamespace: 'prod', selector: ['color=gray,version in (v2)'], service: ['a.b.c.d.api'] });
    expect(r.instances).toHaveLength(1);
    const q = new URL(seenQueries.at(-1)!, 'http://x').searchParams;
    expect(q.get('namespace')).toBe('prod');
    expect(q.getAll('selector')).toEqual(['color=gray,version in (v2)']);
  });
  it('a bad selector is BAD_REQUEST with the registry message', async () => {
    const err = await rejection(h.as('viewer').registry.instances({ cluster: 'reg', registryNamespace: 'prod', selector: ['version in v2'] }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toContain('invalid selector');
  });
  it('an answer that does not match the registry contract is BAD_GATEWAY (bad_response), naming the field', async () => {
    const err = await rejection(h.as('viewer').registry.instances({ cluster: 'reg', registryNamespace: 'skewed' }));
    expect(err.code).toBe('BAD_GATEWAY');
    expect(err.message).toMatch(/^bad_response: .*instances\.0\.namespace: /);
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).registry.instances({ cluster: 'reg', registryNamespace: 'prod' }))).code).toBe('UNAUTHORIZED');
  });
});

describe.each([
  ['addLearner', 'add-learner', undefined, 'operator'],
  ['promote', 'promote', 'reg-4', 'operator'],
  ['transferLeader', 'transfer-leader', 'reg-2', 'admin'],
  ['remove', 'remove', 'reg-3', 'admin'],
] as const)('registry.%s', (proc, action, memberName, role) => {
  it(`records a request annotation in the shared format and audits it (${role})`, async () => {
    const input = { cluster: 'reg', ...(memberName ? { member: memberName } : {}) };
    const out = await (h.as(role, 'otto').registry[proc] as (i: typeof input) => Promise<{ requestId: string }>)(input);
    const c = await cluster();
    const parsed = parseRegistryClusterRequests(c.metadata.annotations);
    expect(parsed.ok).toBe(true);
    const req = parsed.ok ? parsed.requests.at(-1)! : undefined;
    expect(req).toMatchObject({ id: out.requestId, action, requestedBy: 'otto', ...(memberName ? { member: memberName } : {}) });
    expect(c.spec.replicas).toBe(3); // a request never edits spec
    expect(await lastAudit()).toMatchObject({ action: `registry.${proc}`, who: 'otto', result: 'ok', target: `default/reg${memberName ? `/${memberName}` : ''}` });
  });
  it('is forbidden for a viewer and audited', async () => {
    const before = (await cluster()).metadata.annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION];
    const err = await rejection((h.as('viewer').registry[proc] as (i: unknown) => Promise<unknown>)({ cluster: 'reg', member: memberName }));
    expect(err.code).toBe('FORBIDDEN');
    expect((await cluster()).metadata.annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION]).toBe(before);
    expect(await lastAudit()).toMatchObject({ action: `registry.${proc}`, result: 'error' });
  });
});

describe.each([
  ['transferLeader', 'reg-2'],
  ['remove', 'reg-3'],
] as const)('registry.%s is admin only', (proc, memberName) => {
  it('an operator is refused and audited', async () => {
    const before = (await cluster()).metadata.annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION];
    const err = await rejection((h.as('operator', 'otto').registry[proc] as (i: unknown) => Promise<unknown>)({ cluster: 'reg', member: memberName }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toMatch(/role operator may not do this; it needs admin/);
    expect((await cluster()).metadata.annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION]).toBe(before);
    expect(await lastAudit()).toMatchObject({ who: 'otto', action: `registry.${proc}`, result: 'error' });
  });
});

describe('registry.promote checks the promotion rule; registry.forcePromote (admin) skips it', () => {
  const withLearner = async (observations: unknown[], appliedNow: number) => {
    const c = await cluster();
    await h.store.updateStatus('RegistryCluster', 'default', 'reg', {
      ...c.status,
      members: [member(1), member(2), member(3), member(4, { role: 'learner', raftAppliedIndex: appliedNow })],
      learnerObservations: observations,
    });
  };
  const requests = async () => (await cluster()).metadata.annotations?.[REGISTRY_CLUSTER_REQUESTS_ANNOTATION];
  afterAll(() => withLearner([look(1, 94), look(2, 95)], 95));

  it.each([
    ['far behind', [look(1, 10, { leaderCommittedIndex: 8_000 }), look(2, 1_000, { leaderCommittedIndex: 9_000 })], /applied 1000, committed 9000, lag 8000, caught up in 0 of 2 polls\): learner reg-4 is 8000 entries behind/],
    ['caught up now, behind in the previous poll', [look(1, 10), look(2, 99)], /applied 99, committed 100, lag 1, caught up in 1 of 2 polls\): .*was not in the previous poll/],
    ['caught up in its only poll', [look(2, 99)], /applied 99, committed 100, lag 1, caught up in 1 of 2 polls\): .*one poll only/],
    ['unhealthy now', [look(1, 99), look(2, 99, { healthy: false })], /caught up in 0 of 2 polls\): learner reg-4 is not answering/],
    ['under another leader before', [look(1, 99, { leader: 'reg-2', leaderTerm: 1 }), look(2, 99)], /caught up in 1 of 2 polls\): leadership changed/],
    ['never observed', [], /applied unknown, committed unknown, lag unknown, caught up in 0 of 2 polls\): learner reg-4 has not been observed yet/],
  ])('a learner %s: 400 learner_not_caught_up naming applied, committed and lag; nothing recorded; audited', async (_what, observations, says) => {
    await withLearner(observations, 1_000);
    const before = await requests();
    const err = await rejection(h.as('operator', 'otto').registry.promote({ cluster: 'reg', member: 'reg-4' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(err.message).toMatch(/^learner_not_caught_up: reg-4 may not be promoted yet/);
    expect(err.message).toMatch(says);
    expect(err.message).toMatch(/registry\.forcePromote/);
    expect(issuesOf(err.cause)).toEqual([{ path: 'member', message: err.message, reason: 'learner_not_caught_up' }]);
    expect(await requests()).toBe(before);
    expect(await lastAudit()).toMatchObject({ who: 'otto', action: 'registry.promote', result: 'error' });
  });

  it('finds the learner by etcd id too, and refuses a voter (not_a_learner)', async () => {
    await withLearner([look(1, 10), look(2, 20)], 20);
    const byId = await rejection(h.as('operator').registry.promote({ cluster: 'reg', member: 'id4' }));
    expect(issuesOf(byId.cause)?.[0]?.reason).toBe('learner_not_caught_up');
    const voter = await rejection(h.as('operator').registry.promote({ cluster: 'reg', member: 'reg-2' }));
    expect(voter.code).toBe('BAD_REQUEST');
    expect(issuesOf(voter.cause)).toEqual([{ path: 'member', message: 'reg-2 is already a voter; only a learner can be promoted', reason: 'not_a_learner' }]);
  });

  it('once caught up in two polls under one leader the same request is recorded', async () => {
    await withLearner([look(1, 98), look(2, 99)], 99);
    const out = await h.as('operator').registry.promote({ cluster: 'reg', member: 'reg-4' });
    const parsed = parseRegistryClusterRequests((await cluster()).metadata.annotations);
    expect(parsed.ok && parsed.requests.find((r) => r.id === out.requestId)).toMatchObject({ action: 'promote', member: 'reg-4' });
    expect(parsed.ok && parsed.requests.find((r) => r.id === out.requestId)?.force).toBeUndefined();
  });

  it('forcePromote records a forced request for a learner far behind; admin only, audited as such', async () => {
    await withLearner([look(1, 10, { leaderCommittedIndex: 8_000 }), look(2, 1_000, { leaderCommittedIndex: 9_000 })], 1_000);
    const before = await requests();
    const refused = await rejection(h.as('operator', 'otto').registry.forcePromote({ cluster: 'reg', member: 'reg-4' }));
    expect(refused.code).toBe('FORBIDDEN');
    expect(await requests()).toBe(before);
    expect(await lastAudit()).toMatchObject({ who: 'otto', action: 'registry.forcePromote', result: 'error' });

    const out = await h.as('admin', 'ada').registry.forcePromote({ cluster: 'reg', member: 'reg-4' });
    const parsed = parseRegistryClusterRequests((await cluster()).metadata.annotations);
    expect(parsed.ok && parsed.requests.find((r) => r.id === out.requestId)).toMatchObject({ action: 'promote', member: 'reg-4', force: true, requestedBy: 'ada' });
    expect(await lastAudit()).toMatchObject({ who: 'ada', action: 'registry.forcePromote', result: 'ok', target: 'default/reg/reg-4', after: { requestId: out.requestId, force: true } });
  });
});

describe('registry requests housekeeping', () => {
  it('drops requests the operator already handled and refuses unknown members', async () => {
    const c = await cluster();
    const ids = (parseRegistryClusterRequests(c.metadata.annotations) as { requests: Array<{ id: string }> }).requests.map((r) => r.id);
    await h.store.updateStatus('RegistryCluster', 'default', 'reg', { ...c.status, handledRequests: ids.slice(0, 2) });
    await h.as('admin').registry.transferLeader({ cluster: 'reg' });
    const after = (parseRegistryClusterRequests((await cluster()).metadata.annotations) as { requests: Array<{ id: string }> }).requests.map((r) => r.id);
    expect(after.slice(0, -1)).toEqual(ids.slice(2));
    expect((await rejection(h.as('operator').registry.promote({ cluster: 'reg', member: 'reg-9' }))).code).toBe('NOT_FOUND');
  });
  it('validates member names with a path', async () => {
    const err = await rejection(h.as('admin').registry.remove({ cluster: 'reg', member: '' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)![0]!.path).toBe('member');
  });
});

describe('registry.scale (admin)', () => {
  it('edits spec.replicas and audits before/after', async () => {
    const r = await h.as('admin').registry.scale({ cluster: 'reg', replicas: 5 });
    expect(r.replicas).toBe(5);
    expect((await cluster()).spec.replicas).toBe(5);
    expect(await lastAudit()).toMatchObject({ action: 'registry.scale', result: 'ok', before: { replicas: 3 }, after: { replicas: 5 } });
  });
  it('refuses an even count (spec rule) with a path', async () => {
    const err = await rejection(h.as('admin').registry.scale({ cluster: 'reg', replicas: 4 }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)![0]!.path).toBe('replicas');
    expect((await cluster()).spec.replicas).toBe(5);
    expect(await lastAudit()).toMatchObject({ action: 'registry.scale', result: 'error' });
  });
  it('is forbidden for a viewer and for an operator (admin only), audited', async () => {
    expect((await rejection(h.as('viewer').registry.scale({ cluster: 'reg', replicas: 1 }))).code).toBe('FORBIDDEN');
    const err = await rejection(h.as('operator', 'otto').registry.scale({ cluster: 'reg', replicas: 3 }));
    expect(err.code).toBe('FORBIDDEN');
    expect(err.message).toMatch(/it needs admin/);
    expect((await cluster()).spec.replicas).toBe(5);
    expect(await lastAudit()).toMatchObject({ who: 'otto', action: 'registry.scale', result: 'error' });
  });
});

describe('statesync.list (viewer)', () => {
  it('shows per-replica status with backoff', async () => {
    const r = await h.as('viewer').statesync.list();
    const reps = r.items[0]!.replicas;
    expect(reps.find((x) => x.replica === 'router-a')).toMatchObject({ entitiesPulled: 4, healthy: true, health: { health: 'Healthy' }, replicaHealth: { health: 'Healthy' } });
    expect(reps.find((x) => x.replica === 'router-b')).toMatchObject({ backingOff: true, healthy: false, lastError: 'ECONNREFUSED', health: { health: 'Degraded', message: 'ECONNREFUSED' } });
    expect(r.items[0]).toMatchObject({ name: 'routers', health: 'Unknown' });
    expect((await rejection(h.as(undefined).statesync.list())).code).toBe('UNAUTHORIZED');
  });
  it('a wait equal to the sync period is the normal cadence, not a backoff', async () => {
    const s = (await h.store.get('StateSync', 'default', (await h.as('viewer').statesync.list()).items[0]!.name))!;
    const period = (s.spec as { syncPeriod?: string }).syncPeriod ?? '10s';
    const seconds = Number(/^(\d+)s$/.exec(period)?.[1] ?? 10);
    await h.store.updateStatus('StateSync', 'default', s.metadata.name, {
      ...(s.status as object),
      replicas: [{ replica: 'router-a', entitiesPushed: 1, entitiesPulled: 1, backoffSeconds: seconds }, { replica: 'router-c', entitiesPushed: 0, entitiesPulled: 0, backoffSeconds: seconds * 4 }],
    });
    const reps = (await h.as('viewer').statesync.list()).items[0]!.replicas;
    expect(reps.find((x) => x.replica === 'router-a')).toMatchObject({ backingOff: false, healthy: true });
    expect(reps.find((x) => x.replica === 'router-c')).toMatchObject({ backingOff: true, healthy: false });
  });
});

describe('audit.list (viewer)', () => {
  it('filters by action prefix, result and who, newest first, with paging', async () => {
    const all = await h.as('viewer').audit.list({ action: 'registry.', limit: 500 });
    expect(all.items.length).toBeGreaterThan(5);
    expect(all.items.every((r) => r.action.startsWith('registry.'))).toBe(true);
    expect(all.items[0]!.id).toBeGreaterThan(all.items[1]!.id);
    const errors = await h.as('viewer').audit.list({ result: 'error', who: 'viewer-user' });
    expect(errors.items.length).toBeGreaterThan(0);
    expect(errors.items.every((r) => r.result === 'error' && r.who === 'viewer-user')).toBe(true);
    const page1 = await h.as('viewer').audit.list({ limit: 2 });
    const page2 = await h.as('viewer').audit.list({ limit: 2, cursor: page1.nextCursor! });
    expect(page2.items[0]!.id).toBeLessThan(page1.items[1]!.id);
    const target = await h.as('viewer').audit.list({ target: 'reg/reg-4' });
    expect(target.items.every((r) => r.target.includes('reg/reg-4'))).toBe(true);
  });
  it('filters by time range', async () => {
    const future = new Date(Date.now() + 3600_000).toISOString();
    expect((await h.as('viewer').audit.list({ from: future })).items).toEqual([]);
    expect((await h.as('viewer').audit.list({ to: future, limit: 1 })).items).toHaveLength(1);
    const err = await rejection(h.as('viewer').audit.list({ from: 'yesterday' }));
    expect(issuesOf(err.cause)![0]!.path).toBe('from');
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).audit.list())).code).toBe('UNAUTHORIZED');
  });
});
