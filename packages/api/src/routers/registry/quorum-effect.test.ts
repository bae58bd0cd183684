import { describe, expect, it } from 'vitest';
import { quorumEffect } from './quorum-effect.ts';

describe('quorumEffect', () => {
  it('names the effect of removing a voter from three', () => {
    const e = quorumEffect({ action: 'remove', voters: 3, target: { role: 'voter' } });
    expect(e.summary).toBe('3 voters → quorum 2; removing a voter leaves 2 voters, quorum 2, tolerates 0 failures');
    expect([e.votersAfter, e.quorumAfter, e.toleratesAfter]).toEqual([2, 2, 0]);
    expect(e.warning).toBe('afterwards one more failure stops writes');
  });

  it('keeps the voters when a learner is removed or added', () => {
    const removeLearner = quorumEffect({ action: 'remove', voters: 3, target: { role: 'learner' } });
    expect(removeLearner.votersAfter).toBe(3);
    expect(removeLearner.summary).toBe('3 voters → quorum 2; removing a learner keeps 3 voters, quorum 2, tolerates 1 failure');
    expect(removeLearner.warning).toBeUndefined();
    const add = quorumEffect({ action: 'add-learner', voters: 3 });
    expect(add.votersAfter).toBe(3);
    expect(add.summary).toContain('does not vote');
  });

  it('promoting to an even count warns that it buys no tolerance', () => {
    const e = quorumEffect({ action: 'promote', voters: 3, target: { role: 'learner', healthy: true } });
    expect([e.votersAfter, e.quorumAfter, e.toleratesAfter]).toEqual([4, 3, 1]);
    expect(e.summary).toBe('3 voters → quorum 2; promoting the learner makes 4 voters, quorum 3, tolerates 1 failure');
    expect(e.warning).toContain('even number');
    expect(quorumEffect({ action: 'promote', voters: 4, target: { role: 'learner' } }).warning).toBeUndefined();
  });

  it('warns when the healthy voters left cannot form a quorum', () => {
    const e = quorumEffect({ action: 'remove', voters: 3, healthyVoters: 2, target: { role: 'voter', healthy: true } });
    expect(e.warning).toMatch(/only 1 healthy voter would remain for a quorum of 2/);
    // Removing the member that is already down costs nothing healthy.
    const down = quorumEffect({ action: 'remove', voters: 3, healthyVoters: 2, target: { role: 'voter', healthy: false } });
    expect(down.warning).toBe('afterwards one more failure stops writes');
  });

  it('refuses the last voter and a learner as leader', () => {
    expect(quorumEffect({ action: 'remove', voters: 1, target: { role: 'voter', isLeader: true } }).warning).toMatch(/last voter/);
    expect(quorumEffect({ action: 'transfer-leader', voters: 3, target: { role: 'learner' } }).warning).toMatch(/promote it first/);
    const t = quorumEffect({ action: 'transfer-leader', voters: 5, target: { role: 'voter' } });
    expect(t.summary).toMatch(/^5 voters → quorum 3; moving leadership keeps 5 voters, quorum 3, tolerates 2 failures/);
    expect(t.warning).toBeUndefined();
  });
});

describe('quorumEffect, voters and quorum after each action', () => {
  // [action, voters before, target role, voters after, quorum after, tolerates after]
  const table: Array<[Parameters<typeof quorumEffect>[0]['action'], number, 'voter' | 'learner' | undefined, number, number, number]> = [
    ['add-learner', 0, undefined, 0, 1, 0],
    ['add-learner', 3, undefined, 3, 2, 1],
    ['promote', 0, 'learner', 1, 1, 0],
    ['promote', 1, 'learner', 2, 2, 0],
    ['promote', 2, 'learner', 3, 2, 1],
    ['promote', 4, 'learner', 5, 3, 2],
    ['remove', 1, 'voter', 0, 1, 0],
    ['remove', 2, 'voter', 1, 1, 0],
    ['remove', 5, 'voter', 4, 3, 1],
    ['remove', 3, 'learner', 3, 2, 1],
    ['transfer-leader', 3, 'voter', 3, 2, 1],
  ];
  it.each(table)('%s with %i voters (target %s) leaves %i voters, quorum %i, tolerating %i', (action, voters, role, after, quorum, tolerates) => {
    const e = quorumEffect({ action, voters, ...(role ? { target: { role } } : {}) });
    expect([e.votersAfter, e.quorumAfter, e.toleratesAfter]).toEqual([after, quorum, tolerates]);
  });
  it('an empty cluster needs one vote it cannot get (the operator\'s quorum, not 0)', () => {
    expect(quorumEffect({ action: 'add-learner', voters: 0 }).summary).toBe('0 voters → quorum 1; adding a learner keeps 0 voters, quorum 1, tolerates 0 failures (a learner replicates but does not vote)');
  });
});
