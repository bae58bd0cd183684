import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { learnerPromotion, observationBlocker, quorumOf, type LearnerObservation } from '@orrery/spec';
import { learnerObservation, planMembership, removalKeepsQuorum, type ObservedMember, type PlanInput } from './plan-membership.ts';

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
  planMembership('reg', { desiredVoters: 3, members, leaderRaftIndex: 100, leaderTerm: 2, nowMs: NOW, ...over });
/** The previous poll's look at learner reg-4 (2 s ago): caught up under leader reg-1, term 2, unless overridden. */
const before = (over: Partial<LearnerObservation> = {}): LearnerObservation => ({
  member: 'reg-4',
  healthy: true,
  appliedIndex: 100,
  leader: 'reg-1',
  leaderTerm: 2,
  leaderCommittedIndex: 100,
  observedAt: new Date(NOW - 2000).toISOString(),
  ...over,
});

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

  it('queues further additions while a learner exists and reports its lag in entries', () => {
    const step = plan([m(1), m(2), m(3), m(4, { role: 'learner', isLeader: false, raftAppliedIndex: 6_200 })], { desiredVoters: 5, leaderRaftIndex: 10_000, previousLearnerObservation: before({ appliedIndex: 5_000, leaderCommittedIndex: 9_000 }) });
    expect(step).toMatchObject({ kind: 'wait', reason: 'catching-up', lag: 3_800, member: 'reg-4' });
    expect((step as { message: string }).message).toBe(
      "adding learner reg-4: learner reg-4 is 3800 entries behind the leader reg-1 (applied 6200 of committed 10000); wait until it is within 100 entries of the leader's committed index, healthy, for 2 polls in a row under one leader",
    );
  });

  it('promotes a learner only within 100 entries of the leader, in this poll and the previous one', () => {
    const at = (applied: number, previous: LearnerObservation | null = before({ appliedIndex: 9_950, leaderCommittedIndex: 10_000 })) =>
      plan([m(1), m(2), m(3), m(4, { role: 'learner', isLeader: false, raftAppliedIndex: applied })], { desiredVoters: 5, leaderRaftIndex: 10_000, previousLearnerObservation: previous ?? undefined });
    // 95 % of the leader's index was enough before; 500 entries behind is not.
    expect(at(9_500)).toMatchObject({ kind: 'wait', reason: 'catching-up', lag: 500 });
    expect(at(9_899)).toMatchObject({ kind: 'wait', lag: 101 });
    expect(at(9_900)).toMatchObject({ kind: 'promote', member: 'reg-4' });
    // one poll is not enough: no previous look, or the previous one lagged, was unhealthy, or saw another leader
    expect(at(9_990, null)).toMatchObject({ kind: 'wait', reason: 'catching-up', message: expect.stringMatching(/one poll only/) as unknown });
    expect(at(9_990, before({ appliedIndex: 9_000, leaderCommittedIndex: 9_500 })).kind).toBe('wait');
    expect(at(9_990, before({ healthy: false, appliedIndex: undefined }))).toMatchObject({ kind: 'wait' });
    expect(at(9_990, before({ leader: 'reg-2', leaderTerm: 1, appliedIndex: 9_990, leaderCommittedIndex: 9_990 }))).toMatchObject({ kind: 'wait', message: expect.stringMatching(/leadership changed/) as unknown });
    expect(at(9_990, before({ leaderTerm: 1, appliedIndex: 9_990, leaderCommittedIndex: 9_990 })).kind).toBe('wait');
  });

  it('says what the previous poll is to remember: this poll\'s look at the learner and the leader', () => {
    const learner = m(4, { role: 'learner', isLeader: false, raftAppliedIndex: 42 });
    const input: PlanInput = { desiredVoters: 5, members: [m(1), m(2), m(3), learner], leaderRaftIndex: 50, leaderTerm: 7, nowMs: NOW };
    expect(learnerObservation(input, learner)).toEqual({ member: 'reg-4', healthy: true, appliedIndex: 42, leader: 'reg-1', leaderTerm: 7, leaderCommittedIndex: 50, observedAt: new Date(NOW).toISOString() });
    expect(learnerObservation({ ...input, members: [m(1, { isLeader: false }), learner] }, learner)).toEqual({ member: 'reg-4', healthy: true, appliedIndex: 42, observedAt: new Date(NOW).toISOString() });
  });

  it('never promotes an unhealthy learner, and replaces it after replaceUnhealthyAfter', () => {
    const learner = m(4, { role: 'learner', healthy: false, raftAppliedIndex: undefined, unhealthySinceMs: NOW - 5000 });
    expect(plan([m(1), m(2), m(3), learner], { desiredVoters: 5, previousLearnerObservation: before() })).toMatchObject({ kind: 'wait', reason: 'learner-unhealthy' });
    // even when its last known index is close: health is part of the rule
    expect(plan([m(1), m(2), m(3), { ...learner, raftAppliedIndex: 100 }], { desiredVoters: 5, previousLearnerObservation: before() }).kind).toBe('wait');
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
    expect(plan([m(1), m(2), m(3), held], { manualMembers: ['reg-4'], previousLearnerObservation: before() })).toMatchObject({ kind: 'steady', message: expect.stringMatching(/reg-4 .*is caught up.*promote/) as unknown });
    expect(plan([m(1), m(2), m(3), { ...held, raftAppliedIndex: 40 }], { manualMembers: ['reg-4'], leaderRaftIndex: 1_000 })).toMatchObject({ kind: 'steady', message: expect.stringMatching(/reg-4 .*960 entries behind.*promote/) as unknown });
    // without the mark the same learner is promoted (voters < desired) or would be
    expect(plan([m(1), m(2), m(3), held], { desiredVoters: 5, previousLearnerObservation: before() })).toMatchObject({ kind: 'promote', member: 'reg-4' });
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

  it('every step it takes keeps a healthy quorum, and promotes only by the shared rule (property)', () => {
    // healthy members, indexes near the leader's 1 000 and an unchanged leader are common, so promotions do come up
    const applied = fc.oneof(fc.nat(1_200), fc.integer({ min: 880, max: 1_000 }));
    const mostly = fc.constantFrom(true, true, true, false);
    let promotions = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 7 }).filter((n) => n % 2 === 1),
        fc.array(fc.record({ healthy: mostly, learner: fc.boolean(), applied }), { minLength: 1, maxLength: 7 }),
        fc.nat(6),
        fc.option(
          fc.record({ sameLearner: mostly, healthy: mostly, applied, sameLeader: mostly, term: fc.constantFrom(2, 2, 2, 3) }),
          { nil: undefined },
        ),
        (desired, shape, leaderAt, prev) => {
          const members = shape.map((s, i) =>
            m(i + 1, { healthy: s.healthy, role: s.learner && i > 0 ? 'learner' : 'voter', isLeader: false, raftAppliedIndex: s.applied, unhealthySinceMs: s.healthy ? undefined : NOW - 60_000 }),
          );
          // mostly one of the healthy voters leads; sometimes nobody does
          const candidates = members.filter((x) => x.role === 'voter' && x.healthy);
          if (candidates.length && leaderAt < 6) candidates[leaderAt % candidates.length]!.isLeader = true;
          // the previous poll: of this learner or another one, under this leader or another
          const learnerNow = members.find((x) => x.role === 'learner')?.name ?? 'reg-9';
          const leaderNow = members.find((x) => x.isLeader)?.name ?? 'reg-8';
          const previousLearnerObservation =
            prev &&
            before({ member: prev.sameLearner ? learnerNow : 'reg-9', healthy: prev.healthy, appliedIndex: prev.applied, leader: prev.sameLeader ? leaderNow : 'reg-8', leaderTerm: prev.term, leaderCommittedIndex: 1_000 });
          const input = { desiredVoters: desired, replaceUnhealthyAfterMs: 1000, leaderRaftIndex: 1_000, previousLearnerObservation };
          const step = plan(members, input);
          const voters = members.filter((x) => x.role === 'voter');
          const learners = members.filter((x) => x.role === 'learner');
          if (step.kind === 'add-learner') expect(learners.length).toBe(0);
          if (step.kind === 'promote') {
            promotions++;
            // promoted only by the shared rule: healthy, ≤ 100 entries behind in this poll and the previous, one leader and term
            const l = members.find((x) => x.name === step.member)!;
            const now = learnerObservation({ members, nowMs: NOW, leaderTerm: 2, ...input }, l);
            expect(l.healthy).toBe(true);
            expect(1_000 - l.raftAppliedIndex!).toBeLessThanOrEqual(100);
            expect(previousLearnerObservation).toBeDefined();
            expect(observationBlocker(previousLearnerObservation!)).toBeUndefined();
            expect(previousLearnerObservation!.member).toBe(l.name);
            expect(previousLearnerObservation!.leader).toBe(now.leader);
            expect(learnerPromotion(l.name, previousLearnerObservation, now).ready).toBe(true);
          }
          if (step.kind === 'remove' && voters.some((v) => v.name === step.member)) {
            const rest = voters.filter((v) => v.name !== step.member);
            expect(rest.filter((v) => v.healthy).length).toBeGreaterThanOrEqual(quorumOf(rest.length));
          }
          if (step.kind !== 'wait' && step.kind !== 'bootstrap') expect(members.some((x) => x.isLeader)).toBe(true);
        },
      ),
      { numRuns: 1_000 },
    );
    expect(promotions).toBeGreaterThan(0);
  });
});
