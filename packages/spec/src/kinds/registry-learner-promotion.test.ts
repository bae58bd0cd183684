import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  appendObservation,
  lastTwoObservations,
  LEARNER_PROMOTION_RULE,
  learnerPromotion,
  LearnerObservationSchema,
  observationBlocker,
  observationLag,
  type LearnerObservation,
} from './registry-learner-promotion.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const at = (poll: number) => new Date(T0 + poll * 2000).toISOString();
/** A caught-up, healthy observation of reg-4 under reg-1 (term 2) at poll `poll`. */
function obs(poll: number, over: Partial<LearnerObservation> = {}): LearnerObservation {
  return { member: 'reg-4', healthy: true, appliedIndex: 10_000, leader: 'reg-1', leaderTerm: 2, leaderCommittedIndex: 10_000, observedAt: at(poll), ...over };
}
const promote = (prev: LearnerObservation | undefined, cur: LearnerObservation | undefined) => learnerPromotion('reg-4', prev, cur);

describe('the rule in numbers', () => {
  it('is ≤ 100 entries, 2 polls, and etcd\'s 90 % floor', () => {
    expect(LEARNER_PROMOTION_RULE).toEqual({ maxLagEntries: 100, stablePolls: 2, etcdReadyRatio: 0.9 });
  });
});

describe('observationLag', () => {
  it('is the leader\'s committed index minus the learner\'s applied index, never negative', () => {
    expect(observationLag(obs(0, { appliedIndex: 9_000 }))).toBe(1_000);
    expect(observationLag(obs(0, { appliedIndex: 10_005 }))).toBe(0);
    expect(observationLag(obs(0, { appliedIndex: undefined }))).toBeNull();
    expect(observationLag(obs(0, { leaderCommittedIndex: undefined }))).toBeNull();
  });
});

describe('observationBlocker (one poll)', () => {
  it('counts a healthy learner within 100 entries', () => {
    expect(observationBlocker(obs(0))).toBeUndefined();
    expect(observationBlocker(obs(0, { appliedIndex: 9_900 }))).toBeUndefined();
  });
  it('101 entries behind is lagging, and says by how much and what to wait for', () => {
    const b = observationBlocker(obs(0, { appliedIndex: 9_899 }));
    expect(b?.blocker).toBe('lagging');
    expect(b?.message).toBe(
      "learner reg-4 is 101 entries behind the leader reg-1 (applied 9899 of committed 10000); wait until it is within 100 entries of the leader's committed index, healthy, for 2 polls in a row under one leader",
    );
  });
  it('at 90 % of the leader etcd promotes, just below it refuses (short logs only)', () => {
    expect(observationBlocker(obs(0, { appliedIndex: 450, leaderCommittedIndex: 500 }))).toBeUndefined();
    expect(observationBlocker(obs(0, { appliedIndex: 449, leaderCommittedIndex: 500 }))?.blocker).toBe('below-etcd-ratio');
    expect(observationBlocker(obs(0, { appliedIndex: 0, leaderCommittedIndex: 0 }))).toBeUndefined();
  });
  it('an unhealthy learner never counts, however close', () => {
    expect(observationBlocker(obs(0, { healthy: false }))?.blocker).toBe('unhealthy');
  });
  it('no leader, or an index missing, is not caught up', () => {
    expect(observationBlocker(obs(0, { leader: undefined }))?.blocker).toBe('no-leader');
    expect(observationBlocker(obs(0, { appliedIndex: undefined }))?.blocker).toBe('no-index');
    expect(observationBlocker(obs(0, { leaderCommittedIndex: undefined }))?.blocker).toBe('no-index');
  });
});

describe('learnerPromotion (two polls)', () => {
  it('promotes after two consecutive caught-up healthy polls under one leader', () => {
    const r = promote(obs(0, { appliedIndex: 9_950 }), obs(1, { appliedIndex: 9_990 }));
    expect(r).toEqual({ ready: true, member: 'reg-4', lag: 10, message: 'learner reg-4 is caught up: 10 entries behind the leader reg-1, healthy, for 2 polls' });
  });
  it('one caught-up poll is not enough', () => {
    expect(promote(undefined, obs(1))).toMatchObject({ ready: false, blocker: 'not-stable', lag: 0 });
    expect(promote(obs(0, { appliedIndex: 5_000 }), obs(1))).toMatchObject({ ready: false, blocker: 'not-stable', message: expect.stringContaining('was not in the previous poll') as unknown });
    expect(promote(obs(0, { healthy: false }), obs(1))).toMatchObject({ ready: false, blocker: 'not-stable' });
  });
  it('the latest poll decides the blocker and the lag shown', () => {
    expect(promote(obs(0), obs(1, { appliedIndex: 8_000 }))).toMatchObject({ ready: false, blocker: 'lagging', lag: 2_000 });
    expect(promote(obs(0), obs(1, { healthy: false }))).toMatchObject({ ready: false, blocker: 'unhealthy' });
    expect(promote(obs(0), undefined)).toMatchObject({ ready: false, blocker: 'no-observation', lag: null });
  });
  it('a leader change (or a new term of the same leader) between the polls resets', () => {
    expect(promote(obs(0), obs(1, { leader: 'reg-2', leaderTerm: 3 }))).toMatchObject({ ready: false, blocker: 'leader-changed', message: expect.stringContaining('reg-1, term 2 → reg-2, term 3') as unknown });
    expect(promote(obs(0), obs(1, { leaderTerm: 3 }))).toMatchObject({ ready: false, blocker: 'leader-changed' });
    // and the next poll under the new leader counts again
    expect(promote(obs(1, { leader: 'reg-2', leaderTerm: 3 }), obs(2, { leader: 'reg-2', leaderTerm: 3 })).ready).toBe(true);
  });
  it('needs two distinct polls, earlier first, of this very member', () => {
    expect(promote(obs(1), obs(1)).ready).toBe(false);
    expect(promote(obs(2), obs(1)).ready).toBe(false);
    expect(promote(obs(0, { member: 'reg-5' }), obs(1)).ready).toBe(false);
    expect(promote(obs(0), obs(1, { member: 'reg-5' }))).toMatchObject({ ready: false, blocker: 'no-observation' });
  });
});

describe('observation history', () => {
  it('keeps the last two observations of one learner; a new learner starts over', () => {
    let h = appendObservation(undefined, obs(0));
    h = appendObservation(h, obs(1));
    h = appendObservation(h, obs(2));
    expect(h.map((o) => o.observedAt)).toEqual([at(1), at(2)]);
    expect(lastTwoObservations(h, 'reg-4')).toEqual([obs(1), obs(2)]);
    h = appendObservation(h, obs(3, { member: 'reg-5' }));
    expect(h).toEqual([obs(3, { member: 'reg-5' })]);
    expect(lastTwoObservations(h, 'reg-4')).toEqual([undefined, undefined]);
  });
  it('is valid status data', () => {
    expect(LearnerObservationSchema.parse(obs(0))).toEqual(obs(0));
  });
});

/** Observations as the operator could produce them: any health, leader, term and indexes. */
const anyObservation = (poll: number) =>
  fc.record({
    member: fc.constantFrom('reg-4', 'reg-5'),
    healthy: fc.boolean(),
    appliedIndex: fc.option(fc.nat(3_000), { nil: undefined }),
    leader: fc.option(fc.constantFrom('reg-1', 'reg-2'), { nil: undefined }),
    leaderTerm: fc.option(fc.integer({ min: 1, max: 3 }), { nil: undefined }),
    leaderCommittedIndex: fc.option(fc.nat(3_000), { nil: undefined }),
    observedAt: fc.constant(at(poll)),
  });
const lagOk = (o: LearnerObservation) => {
  const lag = observationLag(o);
  return lag !== null && lag <= LEARNER_PROMOTION_RULE.maxLagEntries;
};

describe('learnerPromotion (properties)', () => {
  it('never promotes while either poll is more than 100 entries behind, unhealthy, or leaderless', () => {
    fc.assert(
      fc.property(anyObservation(0), anyObservation(1), (prev, cur) => {
        const r = learnerPromotion('reg-4', prev, cur);
        if (!r.ready) return;
        for (const o of [prev, cur]) {
          expect(o.member).toBe('reg-4');
          expect(o.healthy).toBe(true);
          expect(o.leader).toBeDefined();
          expect(lagOk(o)).toBe(true);
          expect(o.appliedIndex!).toBeGreaterThanOrEqual(LEARNER_PROMOTION_RULE.etcdReadyRatio * o.leaderCommittedIndex!);
        }
        expect(prev.leader).toBe(cur.leader);
        expect(prev.leaderTerm).toBe(cur.leaderTerm);
        expect(r.lag).toBe(observationLag(cur));
      }),
      { numRuns: 2_000 },
    );
  });

  it('promotes exactly when both polls count and nothing changed between them', () => {
    fc.assert(
      fc.property(anyObservation(0), anyObservation(1), (prev, cur) => {
        const expected =
          prev.member === 'reg-4' &&
          cur.member === 'reg-4' &&
          observationBlocker(prev) === undefined &&
          observationBlocker(cur) === undefined &&
          prev.leader === cur.leader &&
          prev.leaderTerm === cur.leaderTerm;
        expect(learnerPromotion('reg-4', prev, cur).ready).toBe(expected);
      }),
      { numRuns: 2_000 },
    );
  });

  it('over a run of polls, a promotion always follows two consecutive caught-up healthy polls under one leader', () => {
    fc.assert(
      fc.property(fc.array(fc.record({ healthy: fc.boolean(), lag: fc.nat(400), leader: fc.constantFrom('reg-1', 'reg-2') }), { minLength: 1, maxLength: 30 }), (polls) => {
        let history: LearnerObservation[] = [];
        polls.forEach((p, i) => {
          history = appendObservation(history, obs(i, { healthy: p.healthy, appliedIndex: 10_000 - p.lag, leader: p.leader }));
          const r = learnerPromotion('reg-4', ...lastTwoObservations(history, 'reg-4'));
          const prev = polls[i - 1];
          const counts = (q: typeof p) => q.healthy && q.lag <= 100;
          expect(r.ready).toBe(!!prev && counts(prev) && counts(p) && prev.leader === p.leader);
        });
      }),
      { numRuns: 500 },
    );
  });
});
