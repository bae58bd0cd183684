import { describe, expect, it } from 'vitest';
import { failuresTolerated, quorumEffect, quorumOf } from './quorum-effect.ts';

describe('quorumOf / failuresTolerated', () => {
  it('is a strict majority', () => {
    expect([0, 1, 2, 3, 4, 5, 7].map(quorumOf)).toEqual([0, 1, 2, 2, 3, 3, 4]);
    expect([0, 1, 2, 3, 4, 5, 7].map(failuresTolerated)).toEqual([0, 0, 0, 1, 1, 2, 3]);
  });
});

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
