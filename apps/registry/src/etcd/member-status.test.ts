import { describe, expect, it } from 'vitest';
import { leaderByHighestTerm } from './member-status.ts';

describe('leaderByHighestTerm', () => {
  it('takes the leader named at the highest term (a resumed old leader loses)', () => {
    expect(leaderByHighestTerm([{ leaderId: 'a', raftTerm: 3 }, { leaderId: 'b', raftTerm: 4 }, { leaderId: 'b', raftTerm: 4 }])).toBe('b');
    expect(leaderByHighestTerm([{ leaderId: 'b', raftTerm: 4 }, { leaderId: 'a', raftTerm: 3 }])).toBe('b');
  });
  it('skips members that know no leader or did not answer', () => {
    expect(leaderByHighestTerm([undefined, { leaderId: undefined, raftTerm: 9 }, { leaderId: 'c', raftTerm: 2 }])).toBe('c');
    expect(leaderByHighestTerm([undefined, { raftTerm: 5 }])).toBeUndefined();
    expect(leaderByHighestTerm([])).toBeUndefined();
  });
});
