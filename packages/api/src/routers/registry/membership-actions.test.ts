import { describe, expect, it } from 'vitest';
import type { LearnerVerdict } from './learner-verdict.ts';
import { membershipActions } from './membership-actions.ts';

type Health = 'healthy' | 'unhealthy' | 'unknown';
const voter = (name: string, health: Health = 'healthy', isLeader = false) => ({ name, role: 'voter' as const, health, isLeader });
const learner = (name: string, health: Health = 'healthy') => ({ name, role: 'learner' as const, health, isLeader: false });
const verdict = (ready: boolean, message = ready ? 'caught up' : 'learner r-4 is 8000 entries behind') => ({ ready, message }) as LearnerVerdict;

const three = [voter('r-1', 'healthy', true), voter('r-2'), voter('r-3')];
const ABSENT = 'absent';

describe('membershipActions: quorum', () => {
  it('counts voters, healthy voters, quorum and tolerated failures', () => {
    expect(membershipActions([voter('r-1', 'healthy', true), voter('r-2'), voter('r-3', 'unhealthy'), learner('r-4')]).quorum).toEqual({ voters: 3, healthyVoters: 2, quorum: 2, tolerates: 1 });
    expect(membershipActions([]).quorum).toEqual({ voters: 0, healthyVoters: 0, quorum: 1, tolerates: 0 });
  });
});

/** Which actions a member has and why each must wait (null: it may run now). Pure decision + reason. */
describe('membershipActions: what each member may do now', () => {
  /** Per action: why it waits, null when it may run, or ABSENT when the member has no such action. */
  type Row = [string, Array<ReturnType<typeof voter> | ReturnType<typeof learner>>, string, LearnerVerdict | null, Record<string, string | null>];
  const table: Row[] = [
    ['a follower voter', three, 'r-2', null, { promote: ABSENT, forcePromote: ABSENT, transferLeader: null, remove: null }],
    ['the leader', three, 'r-1', null, { promote: ABSENT, forcePromote: ABSENT, transferLeader: ABSENT, remove: null }],
    ['an unhealthy follower', [voter('r-1', 'healthy', true), voter('r-2', 'unhealthy'), voter('r-3')], 'r-2', null, { transferLeader: 'r-2 is unhealthy: leadership goes only to a healthy voter', remove: null }],
    ['a follower not observed yet', [voter('r-1', 'healthy', true), voter('r-2', 'unknown'), voter('r-3')], 'r-2', null, { transferLeader: 'r-2 is unknown: leadership goes only to a healthy voter' }],
    ['the last voter', [voter('r-1', 'healthy', true)], 'r-1', null, { remove: 'r-1 is the last voter' }],
    ['a caught-up learner', [...three, learner('r-4')], 'r-4', verdict(true), { promote: null, forcePromote: ABSENT, transferLeader: ABSENT, remove: null }],
    ['a lagging learner', [...three, learner('r-4')], 'r-4', verdict(false), { promote: 'learner r-4 is 8000 entries behind', forcePromote: null, remove: null }],
    ['a learner without a verdict', [...three, learner('r-4')], 'r-4', null, { promote: "no promotion verdict for r-4 yet; wait for the operator's next poll", forcePromote: null }],
    ['no leader: only remove', [voter('r-1'), voter('r-2'), learner('r-4')], 'r-4', verdict(true), { promote: 'the cluster has no leader right now', forcePromote: ABSENT, remove: null }],
    ['no leader: a follower', [voter('r-1'), voter('r-2'), voter('r-3')], 'r-2', null, { transferLeader: 'the cluster has no leader right now', remove: null }],
    ['no leader: a lagging learner', [voter('r-1'), voter('r-2'), learner('r-4')], 'r-4', verdict(false), { promote: 'the cluster has no leader right now', forcePromote: 'the cluster has no leader right now' }],
  ];
  it.each(table)('%s', (_, members, name, promotion, expected) => {
    const actions = membershipActions(members).of(members.find((m) => m.name === name)!, promotion);
    for (const [action, why] of Object.entries(expected)) {
      const offer = actions[action as keyof typeof actions];
      if (why === ABSENT) expect(offer, action).toBeNull();
      else expect(offer?.unavailable, action).toBe(why);
    }
  });
});

describe('membershipActions: add learner', () => {
  it.each([
    ['a steady cluster', three, null],
    ['a learner already', [...three, learner('r-4')], 'one learner at a time: r-4 is still a learner (promote or remove it first)'],
    ['no leader', [voter('r-1'), voter('r-2')], 'the cluster has no leader right now'],
  ] as const)('%s', (_, members, why) => {
    expect(membershipActions(members).addLearner.unavailable).toBe(why);
  });
});

describe('membershipActions: effects', () => {
  it('judges a removal by the healthy voters left', () => {
    const a = membershipActions([voter('r-1', 'healthy', true), voter('r-2'), voter('r-3', 'unhealthy')]);
    expect(a.of(voter('r-2'), null).remove.effect.warning).toMatch(/only 1 healthy voter would remain for a quorum of 2/);
    expect(a.of(voter('r-3', 'unhealthy'), null).remove.effect.warning).toBe('afterwards one more failure stops writes');
    expect(a.addLearner.effect.warning).toBeUndefined();
  });
  it('a promotion counts the learner as a voter; force-promote has the same effect', () => {
    const a = membershipActions([...three, learner('r-4')]);
    const r4 = a.of(learner('r-4'), verdict(false));
    expect(r4.promote!.effect).toMatchObject({ votersAfter: 4, quorumAfter: 3 });
    expect(r4.forcePromote!.effect).toEqual(r4.promote!.effect);
  });
});
