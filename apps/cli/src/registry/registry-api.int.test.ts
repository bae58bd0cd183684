/**
 * `orrery registry` through the admin API: the real binary against the real API handler over an
 * embedded store and audit log. The operator's reconciler is stood in by a loop that acknowledges
 * requests the way it does (status.lastRequest / handledRequests): the real one needs etcd
 * members, and apps/operator's RegistryCluster tests cover it carrying requests out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRegistryClusterRequests, type RegistryCluster } from '@orrery/spec';
import { startCliApi, type CliApiHarness } from '../testing/cli-api-harness.ts';

let h: CliApiHarness;
let ackTimer: NodeJS.Timeout;
/** While true the stand-in operator leaves requests pending. */
let paused = false;
const REJECTED_MEMBER = 'reg-3';

const member = (n: number, role: 'voter' | 'learner' = 'voter') => ({ id: `id${n}`, name: `reg-${n}`, role, isLeader: n === 1, raftTerm: 2, raftIndex: 100, raftAppliedIndex: 100, health: 'healthy' as const });

async function acknowledgeOne(): Promise<void> {
  const c = (await h.store.get('RegistryCluster', 'default', 'reg')) as RegistryCluster;
  const parsed = parseRegistryClusterRequests(c.metadata.annotations);
  const handled = c.status?.handledRequests ?? [];
  const next = parsed.ok ? parsed.requests.find((r) => !handled.includes(r.id)) : undefined;
  if (!next) return;
  const rejected = next.member === REJECTED_MEMBER;
  await h.store.updateStatus('RegistryCluster', 'default', 'reg', {
    ...c.status,
    lastRequest: {
      id: next.id,
      action: next.action,
      ...(next.member ? { member: next.member } : {}),
      outcome: rejected ? 'rejected' : 'succeeded',
      message: rejected ? `removing ${next.member} would leave too few voters for quorum` : `${next.action} done`,
      completedAt: new Date().toISOString(),
    },
    handledRequests: [...handled, next.id],
  });
}

beforeAll(async () => {
  h = await startCliApi();
  await h.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: 'default' }, spec: { replicas: 3 } });
  // reg-4 caught up in the operator's last two polls, so registry.promote's catch-up rule lets it through.
  const look = (s: number) => ({ member: 'reg-4', healthy: true, appliedIndex: 100, leader: 'reg-1', leaderTerm: 2, leaderCommittedIndex: 100, observedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString() });
  await h.store.updateStatus('RegistryCluster', 'default', 'reg', { members: [member(1), member(2), member(3), member(4, 'learner')], leader: 'reg-1', learnerObservations: [look(0), look(2)] });
  ackTimer = setInterval(() => {
    if (!paused) acknowledgeOne().catch(() => {}); // a conflicting write is retried on the next tick
  }, 300);
}, 60_000);
afterAll(async () => {
  clearInterval(ackTimer);
  await h.close();
});

const lastAudit = async () => (await h.audit()).at(-1)!;

describe('orrery registry through the admin API', () => {
  it('promote: recorded, progress shown, ends with the operator outcome, audited under the caller', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['registry', 'member', 'promote', 'default/reg', 'reg-4']);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toMatch(/promote reg-4: recorded as r-\S+ on default\/reg; waiting for the operator/);
    expect(r.out.trim()).toBe('promote reg-4: succeeded — promote done');
    expect(await lastAudit()).toMatchObject({ action: 'registry.promote', who: 'admin-token', role: 'admin', target: 'default/reg/reg-4', result: 'ok' });
  });

  it('a viewer is refused with the reason, nothing is recorded, and the refusal is audited', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['registry', 'member', 'add-learner', 'reg'], { ORRERY_API_TOKEN: await h.session('vera', 'viewer') });
    expect(r.code).toBe(1);
    expect(r.err).toContain('orrery registry: the admin API refused: role viewer may not do this; it needs operator');
    expect(await lastAudit()).toMatchObject({ action: 'registry.addLearner', who: 'vera', role: 'viewer', target: 'default/reg', result: 'error' });
  });

  it('an operator may add a learner but not move leadership (admin only)', { timeout: 60_000 }, async () => {
    const otto = await h.session('otto', 'operator');
    const added = await h.orrery(['registry', 'member', 'add-learner', 'reg'], { ORRERY_API_TOKEN: otto });
    expect(added.code, added.err).toBe(0);
    expect(added.out).toContain('add learner: succeeded');
    const moved = await h.orrery(['registry', 'leader', 'transfer', 'reg', 'reg-2'], { ORRERY_API_TOKEN: otto });
    expect(moved.code).toBe(1);
    expect(moved.err).toContain('role operator may not do this; it needs admin');
    expect(await lastAudit()).toMatchObject({ action: 'registry.transferLeader', who: 'otto', result: 'error' });
  });

  it('an operator rejection exits 1 with its message', { timeout: 60_000 }, async () => {
    const r = await h.orrery(['registry', 'member', 'remove', 'reg', REJECTED_MEMBER]);
    expect(r.code).toBe(1);
    expect(r.out.trim()).toBe(`remove ${REJECTED_MEMBER}: rejected — removing ${REJECTED_MEMBER} would leave too few voters for quorum`);
  });

  it('--no-wait returns once recorded; --timeout gives up with a hint; status shows the pending request', { timeout: 60_000 }, async () => {
    paused = true;
    try {
      const sent = await h.orrery(['registry', 'leader', 'transfer', 'reg', '--no-wait']);
      expect(sent.code, sent.err).toBe(0);
      const id = /recorded as (r-\S+)/.exec(sent.out)?.[1];
      expect(id).toBeDefined();
      const late = await h.orrery(['registry', 'member', 'promote', 'reg', 'reg-4', '--timeout', '1s']);
      expect(late.code).toBe(1);
      expect(late.err).toMatch(/is still not done after 1 s \(promote reg-4: waiting for the operator \(1 request ahead\)\)/);
      expect(late.err).toContain('orrery registry status default/reg');
      const status = await h.orrery(['registry', 'status', 'reg']);
      expect(status.code, status.err).toBe(0);
      expect(status.out).toContain('registrycluster default/reg  leader reg-1  voters 3 (desired 3)');
      expect(status.out).toContain(`pending ${id}: transfer-leader (by admin-token)`);
    } finally {
      paused = false;
    }
  });

  it('a missing cluster is NOT_FOUND in words; a bad cluster argument is a usage error', { timeout: 60_000 }, async () => {
    const missing = await h.orrery(['registry', 'status', 'default/nope']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('RegistryCluster default/nope not found');
    expect((await h.orrery(['registry', 'member', 'promote', 'Bad/Reg', 'reg-4'])).code).toBe(2);
  });
});
