import { describe, expect, it } from 'vitest';
import { learnerPromotion, type RegistryAdminStatus, type RegistryMemberView } from '@orrery/spec';
import { learnerObservation, notCaughtUpMessage } from './learner-observation.ts';

const member = (over: Partial<RegistryMemberView>): RegistryMemberView => ({
  id: 'a1',
  name: 'm1',
  peerURLs: [],
  clientURLs: [],
  isLearner: false,
  isLeader: false,
  reachable: true,
  errors: [],
  ...over,
});
const status = (learner: Partial<RegistryMemberView>, leader: Partial<RegistryMemberView> | null = {}): RegistryAdminStatus => ({
  clusterId: 'c',
  leader: leader ? { id: 'a1', name: 'm1' } : null,
  members: [
    member({ isLeader: leader !== null, raftTerm: 3, raftIndex: 5000, raftAppliedIndex: 5000, ...leader }),
    member({ id: 'b2', name: 'm4', isLearner: true, raftAppliedIndex: 4950, ...learner }),
  ],
});
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1) + ms);

describe('learnerObservation', () => {
  it.each([
    ['caught up', status({}), { healthy: true, appliedIndex: 4950, leader: 'm1', leaderTerm: 3, leaderCommittedIndex: 5000 }, []],
    ['not answering: no applied index even if one was listed', status({ reachable: false }), { healthy: false, leader: 'm1', leaderCommittedIndex: 5000 }, ['appliedIndex']],
    ['no leader', status({}, null), { healthy: true, appliedIndex: 4950 }, ['leader', 'leaderTerm', 'leaderCommittedIndex']],
    ['a leader not started has no name: its id stands in', status({}, { name: '' }), { leader: 'a1' }, []],
  ] as const)('%s', (_what, s, expected, absent) => {
    const o = learnerObservation(s, 'b2', at(0));
    expect(o).toMatchObject({ member: 'b2', observedAt: at(0).toISOString(), ...expected });
    for (const key of absent) expect(o[key]).toBeUndefined();
  });

  it('two polls of a caught-up learner pass the shared rule; a lagging one is refused naming applied, committed and lag', () => {
    expect(learnerPromotion('b2', learnerObservation(status({}), 'b2', at(0)), learnerObservation(status({}), 'b2', at(1000))).ready).toBe(true);
    const behind = learnerObservation(status({ raftAppliedIndex: 1000 }), 'b2', at(1000));
    const p = learnerPromotion('b2', learnerObservation(status({}), 'b2', at(0)), behind);
    expect(p.ready).toBe(false);
    if (p.ready) return;
    expect(p.blocker).toBe('lagging');
    expect(notCaughtUpMessage(p, behind)).toMatch(/^learner b2 may not be promoted yet \(applied 1000, committed 5000, lag 4000\): .*force: true/);
  });

  it('an unreachable learner: unknown applied index and lag in the message', () => {
    const o = learnerObservation(status({ reachable: false }), 'b2', at(0));
    const p = learnerPromotion('b2', undefined, o);
    if (p.ready) throw new Error('ready');
    expect(p.blocker).toBe('unhealthy');
    expect(notCaughtUpMessage(p, o)).toMatch(/applied unknown, committed 5000, lag unknown/);
  });
});
