import { describe, expect, it } from 'vitest';
import { renderStatus } from './status-table.ts';

describe('registry status table', () => {
  it('shows one row per member with role, leader mark and raft progress', () => {
    const text = renderStatus({
      clusterId: 'c1',
      leader: { id: 'a1', name: 'm1' },
      members: [
        { id: 'a1', name: 'm1', isLearner: false, isLeader: true, reachable: true, raftTerm: 3, raftIndex: 42, raftAppliedIndex: 42, dbSize: 20480, peerURLs: ['http://127.0.0.1:2380'], clientURLs: ['http://127.0.0.1:2379'], errors: [] },
        { id: 'b2', name: '', peerURLs: ['http://127.0.0.1:2390'], clientURLs: [], isLearner: true, isLeader: false, reachable: false, errors: ['not started yet'] },
      ],
    });
    const lines = text.split('\n');
    expect(lines[0]).toBe('cluster c1  leader m1 (a1)');
    expect(lines[2]).toMatch(/^ID\s+NAME\s+ROLE\s+LEADER\s+HEALTH/);
    expect(lines[3]).toMatch(/^a1\s+m1\s+voter\s+\*\s+healthy\s+3\s+42\s+42\s+20\.0 KiB\s+http:\/\/127\.0\.0\.1:2379$/);
    expect(lines[4]).toMatch(/^b2\s+\(not started\)\s+learner\s+unreachable/);
    expect(text).toContain('b2: not started yet');
  });
});
