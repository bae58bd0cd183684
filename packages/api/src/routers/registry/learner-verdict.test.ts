import { describe, expect, it } from 'vitest';
import type { LearnerObservation, RegistryCluster } from '@orrery/spec';
import { learnerVerdict } from './learner-verdict.ts';

/** reg-4 caught up under reg-1 (term 2) at poll `poll`. */
const look = (poll: number, over: Partial<LearnerObservation> = {}): LearnerObservation => ({
  member: 'reg-4',
  healthy: true,
  appliedIndex: 9_990,
  leader: 'reg-1',
  leaderTerm: 2,
  leaderCommittedIndex: 10_000,
  observedAt: new Date(Date.UTC(2026, 0, 1, 0, 0, 2 * poll)).toISOString(),
  ...over,
});
const cluster = (learnerObservations: LearnerObservation[]) =>
  ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: 'default' }, spec: { replicas: 3 }, status: { learnerObservations } }) as unknown as RegistryCluster;

/**
 * What the member table shows per learner: the spec rule's verdict (learnerPromotion) and how
 * many of the 2 polls ending with the latest saw it caught up. Pure decision + reason, one row per blocker.
 */
describe('learnerVerdict', () => {
  // [case, observations (oldest first), ready, blocker, polls, lagText]
  const table: Array<[string, LearnerObservation[], boolean, string | undefined, number, string]> = [
    ['never observed', [], false, 'no-observation', 0, 'lag unknown'],
    ['caught up in the only poll', [look(1)], false, 'not-stable', 1, '10 entries behind'],
    ['caught up in both polls', [look(1), look(2)], true, undefined, 2, '10 entries behind'],
    ['caught up now, lagging before', [look(1, { appliedIndex: 1_000 }), look(2)], false, 'not-stable', 1, '10 entries behind'],
    ['caught up before, lagging now', [look(1), look(2, { appliedIndex: 1_000 })], false, 'lagging', 0, '9000 entries behind'],
    ['one entry behind, both polls', [look(1, { appliedIndex: 9_999 }), look(2, { appliedIndex: 9_999 })], true, undefined, 2, '1 entry behind'],
    ['a new term between the polls', [look(1), look(2, { leaderTerm: 3 })], false, 'leader-changed', 1, '10 entries behind'],
    ['a new leader between the polls', [look(1), look(2, { leader: 'reg-2' })], false, 'leader-changed', 1, '10 entries behind'],
    ['unhealthy now', [look(1), look(2, { healthy: false })], false, 'unhealthy', 0, '10 entries behind'],
    ['no leader now', [look(1), look(2, { leader: undefined, leaderTerm: undefined, leaderCommittedIndex: undefined })], false, 'no-leader', 0, 'lag unknown'],
    ['no applied index yet', [look(1), look(2, { appliedIndex: undefined })], false, 'no-index', 0, 'lag unknown'],
    ['within 100 entries but below etcd\'s 90 %', [look(1, { appliedIndex: 10, leaderCommittedIndex: 100 }), look(2, { appliedIndex: 10, leaderCommittedIndex: 100 })], false, 'below-etcd-ratio', 0, '90 entries behind'],
    ['polls out of order count as one', [look(2), look(1)], false, 'not-stable', 1, '10 entries behind'],
    ['another member\'s observations do not count', [look(1, { member: 'reg-5' }), look(2, { member: 'reg-5' })], false, 'no-observation', 0, 'lag unknown'],
  ];
  it.each(table)('%s', (_, observations, ready, blocker, polls, lagText) => {
    const v = learnerVerdict(cluster(observations), 'reg-4');
    expect(v).toMatchObject({ ready, polls, required: 2, lagText, pollsText: `caught up in ${polls} of 2 polls` });
    expect(v.blocker).toBe(blocker);
    expect(v.message.length).toBeGreaterThan(0);
  });
});
