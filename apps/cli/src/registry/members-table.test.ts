import { describe, expect, it } from 'vitest';
import { renderMembers } from './members-table.ts';

describe('renderMembers', () => {
  it('one row per member, then pending requests and the last outcome', () => {
    const text = renderMembers('default/reg', {
      replicas: 3,
      leader: 'reg-1',
      members: [
        { id: 'a1', name: 'reg-1', role: 'voter', isLeader: true, health: 'healthy', raftTerm: 2, raftIndex: 100, raftAppliedIndex: 100, lag: 0 },
        { id: 'b2', name: 'reg-4', role: 'learner', isLeader: false, health: 'healthy', lag: null },
      ],
      pendingRequests: [{ id: 'r-2', action: 'promote', member: 'reg-4', requestedBy: 'admin-token' }],
      lastRequest: { id: 'r-1', action: 'add-learner', member: 'reg-4', outcome: 'succeeded', message: 'reg-4 added as a learner' },
    });
    expect(text.split('\n')).toEqual([
      'registrycluster default/reg  leader reg-1  voters 1 (desired 3)',
      'NAME   ID  ROLE     LEADER  HEALTH   TERM  INDEX  APPLIED  LAG',
      'reg-1  a1  voter    *       healthy  2     100    100      0',
      'reg-4  b2  learner          healthy  -     -      -        -',
      'pending r-2: promote reg-4 (by admin-token)',
      'last request r-1: add-learner reg-4 succeeded — reg-4 added as a learner',
    ]);
  });
});
