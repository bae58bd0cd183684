import { describe, expect, it } from 'vitest';
import { failuresTolerated, quorumOf } from './registry-quorum.ts';

describe('quorumOf / failuresTolerated', () => {
  // [voters, quorum, tolerated failures]
  const table: Array<[number, number, number]> = [
    [-1, 1, 0],
    [0, 1, 0],
    [1, 1, 0],
    [2, 2, 0],
    [3, 2, 1],
    [4, 3, 1],
    [5, 3, 2],
    [6, 4, 2],
    [7, 4, 3],
  ];
  it.each(table)('%i voters need %i votes and survive %i failures', (voters, quorum, tolerated) => {
    expect(quorumOf(voters)).toBe(quorum);
    expect(failuresTolerated(voters)).toBe(tolerated);
  });
  it('an empty cluster has no quorum: no healthy count reaches it', () => {
    expect(0 >= quorumOf(0)).toBe(false);
  });
  it('is the operator planner\'s formula, floor(n / 2) + 1, for every real cluster size', () => {
    for (let n = 1; n <= 99; n++) expect(quorumOf(n)).toBe(Math.floor(n / 2) + 1);
  });
});
