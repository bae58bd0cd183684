import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { catchUpPercent, caughtUp, planMembership, quorumOf, removalKeepsQuorum, type ObservedMember, type PlanInput } from './plan-membership.ts';

const NOW = 1_000_000;
function m(ordinal: number, over: Partial<ObservedMember> = {}): ObservedMember {
  return {
    name: `reg-${ordinal}`,
    ordinal,
    id: `a${ordinal}`,
    role: 'voter',
    inCluster: true,
    healthy: true,
    isLeader: ordinal === 1,
    raftAppliedIndex: 100,
    local: true,
    ...over,
  };
}
const plan = (members: ObservedMember[], over: Partial<PlanInput> = {}) =>
  planMembership('reg', { desiredVoters: 3, members, leaderRaftIndex: 100, nowMs: NOW, ...over });

describe('planMembership', () => {
  it('bootstraps the desired number of members when there are none', () => {
    expect(plan([], { desiredVoters: 3 })).toMatchObject({ kind: 'bootstrap', names: ['reg-1', 'reg-2', 'reg-3'] });
  });

  it('is steady when the voters match the spec and all are healthy', () => {
    expect(plan([m(1), m(2), m(3)]).kind).toBe('steady');
  });

  it('waits without a leader or without quorum', () => {
    expect(plan([m(1, { isLeader: false }), m(2), m(3)])).toMatchObject({ kind: 'wait', reason: 'no-leader' });
    expect(plan([m(1), m(2, { healthy: false }), m(3, { healthy: false })], { desiredVoters: 5 })).toMatchObject({ kind: 'wait', reason: 'no-leader' });
  });

  it('scales up by adding one learner with the lowest free ordinal', () => {
    expect(plan([m(1), m(2), m(3)], { desiredVoters: 5 })).toMatchObject({ kind: 'add-learner', name: 'reg-4', ordinal: 4 });
    expect(plan([m(1), m(3), m(4)], { desiredVoters: 5 })).toMatchObject({ kind: 'add-learner', name: 'reg-2' });
  });

  it('queues further additions while a learner exists and reports its progress', () => {
    const step = plan([m(1), m(2), m(3), m(4, { role: 'learner', isLeader: false, raftAppliedIndex: 62 })], { desiredVoters: 5 });
    expect(step).toMatchObject({ kind: 'wait', reason: 'catching-up', percent: 62, message: 'adding learner reg-4: 62 % caught up' });
  });

  it('promotes a learner only once it reaches 90 % of the leader index', () => {
    const at = (applied: number) => plan([m(1), m(2), m(3), m(4, { role: 'learner', raftAppliedIndex: applied })], { desiredVoters: 5, leaderRaftIndex: 1000 });
    expect(at(899).kind).toBe('wait');
    expect(at(900)).toMatchObject({ kind: 'promote', member: 'reg-4' });
  });

  it('never promotes an unhealthy learner, and replaces it after replaceUnhealthyAfter', () => {
    const learner = m(4, { role: 'learner', healthy: false, raftAppliedIndex: undefined, unhealthySinceMs: NOW - 5000 });
    expect(plan([m(1), m(2), m(3), learner], { desiredVoters: 5 })).toMatchObject({ kind: 'wait', reason: 'learner-unhealthy' });
    expect(plan([m(1), m(2), m(3), learner], { desiredVoters: 5, replaceUnhealthyAfterMs: 1000 })).toMatchObject({ kind: 'remove', member: 'reg-4', reason: 'replace' });
  });

  it('removes a learner etcd knows but this operator does not run', () => {
    expect(plan([m(1), m(2), m(3), m(4, { role: 'learner', local: false, name: '', id: 'ff' })])).toMatchObject({ kind: 'remove', reason: 'stray', member: 'ff' });
  });

  it('scales down the highest ordinal first, one at a time', () => {
    expect(plan([m(1), m(2), m(3), m(4), m(5)])).toMatchObject({ kind: 'remove', member: 'reg-5', reason: 'scale-down' });
    expect(plan([m(1), m(2), m(3), m(4)])).toMatchObject({ kind: 'remove', member: 'reg-4' });
  });

  it('holds a request-added learner (never auto-promotes it) however caught up it is', () => {
    const held = m(4, { role: 'learner', isLeader: false, raftAppliedIndex: 100 });
    expect(plan([m(1), m(2), m(3), held], { manualMembers: ['reg-4'] })).toMatchObject({ kind: 'steady', message: expect.stringMatching(/reg-4 .*100 % caught up.*promote/) as unknown });
    // without the mark the same learner is promoted (voters < desired) or would be
    expect(plan([m(1), m(2), m(3), held], { desiredVoters: 5 })).toMatchObject({ kind: 'promote', member: 'reg-4' });
  });

  it('keeps a request-added voter on top of spec.replicas, and scales spec-owned members down first', () => {
    expect(plan([m(1), m(2), m(3), m(4)], { manualMembers: ['reg-4'] }).kind).toBe('steady');
    expect(plan([m(1), m(2), m(3), m(4)], { desiredVoters: 2, manualMembers: ['reg-4'] })).toMatchObject({ kind: 'remove', member: 'reg-3', reason: 'scale-down' });
    // a held name that is no longer a member changes nothing
    expect(plan([m(1), m(2), m(3)], { manualMembers: ['reg-9'] }).kind).toBe('steady');
  });

  it('an unhealthy held learner is still replaced after replaceUnhealthyAfter', () => {
    const learner = m(4, { role: 'learner', isLeader: false, healthy: false, raftAppliedIndex: undefined, unhealthySinceMs: NOW - 5000 });
    expect(plan([m(1), m(2), m(3), learner], { manualMembers: ['reg-4'], replaceUnhealthyAfterMs: 1000 })).toMatchObject({ kind: 'remove', member: 'reg-4' });
  });

  it('moves leadership away before removing the leader', () => {
    expect(plan([m(1, { isLeader: false }), m(2), m(3), m(4), m(5, { isLeader: true })])).toMatchObject({ kind: 'transfer-leader', from: 'reg-5', to: 'reg-1' });
  });

  it('pauses scale-down when removal would break quorum', () => {
    const members = [m(1), m(2, { healthy: false }), m(3, { healthy: false }), m(4), m(5)];
    // 5 voters, 3 healthy; removing healthy reg-5 leaves 4 voters with 2 healthy < quorum 3.
    expect(plan(members)).toMatchObject({ kind: 'wait', reason: 'quorum-at-risk', member: 'reg-5' });
  });

  it('replaces a voter unhealthy for too long when the rest keep quorum', () => {
    const dead = m(2, { healthy: false, unhealthySinceMs: NOW - 10_000 });
    expect(plan([m(1), dead, m(3)], { replaceUnhealthyAfterMs: 5000 })).toMatchObject({ kind: 'remove', member: 'reg-2', reason: 'replace' });
    expect(plan([m(1), dead, m(3)], { replaceUnhealthyAfterMs: 20_000 })).toMatchObject({ kind: 'wait', reason: 'member-unhealthy' });
    expect(plan([m(1), dead, m(3)])).toMatchObject({ kind: 'wait', reason: 'member-unhealthy' });
    // After the removal, the freed ordinal comes back as a learner.
    expect(plan([m(1), m(3)], { replaceUnhealthyAfterMs: 5000 })).toMatchObject({ kind: 'add-learner', name: 'reg-2' });
  });

  it('never removes the last voter', () => {
    expect(removalKeepsQuorum([m(1)], m(1))).toBe(false);
  });

  it('every step it takes keeps a healthy quorum (property)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }).filter((n) => n % 2 === 1),
        fc.array(fc.record({ healthy: fc.boolean(), learner: fc.boolean(), applied: fc.nat(200) }), { minLength: 1, maxLength: 7 }),
        fc.nat(6),
        (desired, shape, leaderAt) => {
          const members = shape.map((s, i) =>
            m(i + 1, { healthy: s.healthy, role: s.learner && i > 0 ? 'learner' : 'voter', isLeader: false, raftAppliedIndex: s.applied, unhealthySinceMs: s.healthy ? undefined : NOW - 60_000 }),
          );
          const li = Math.min(leaderAt, members.length - 1);
          if (members[li]!.role === 'voter' && members[li]!.healthy) members[li]!.isLeader = true;
          const step = plan(members, { desiredVoters: desired, replaceUnhealthyAfterMs: 1000 });
          const voters = members.filter((x) => x.role === 'voter');
          const learners = members.filter((x) => x.role === 'learner');
          if (step.kind === 'add-learner') expect(learners.length).toBe(0);
          if (step.kind === 'promote') {
            const l = members.find((x) => x.name === step.member)!;
            expect(l.healthy && caughtUp(l.raftAppliedIndex, 100)).toBe(true);
          }
          if (step.kind === 'remove' && voters.some((v) => v.name === step.member)) {
            const rest = voters.filter((v) => v.name !== step.member);
            expect(rest.filter((v) => v.healthy).length).toBeGreaterThanOrEqual(quorumOf(rest.length));
          }
          if (step.kind !== 'wait' && step.kind !== 'bootstrap') expect(members.some((x) => x.isLeader)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('catch-up arithmetic', () => {
  it('reports whole percent, capped at 100', () => {
    expect(catchUpPercent(62, 100)).toBe(62);
    expect(catchUpPercent(150, 100)).toBe(100);
    expect(catchUpPercent(undefined, 100)).toBe(0);
    expect(catchUpPercent(5, 0)).toBe(100);
  });
  it('quorum is a strict majority', () => {
    expect([1, 2, 3, 4, 5].map(quorumOf)).toEqual([1, 2, 2, 3, 3]);
  });
});
