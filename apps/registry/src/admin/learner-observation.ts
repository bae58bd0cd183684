/**
 * The admin API's side of the learner promotion rule (@orrery/spec, registry-learner-promotion.ts):
 * one `/admin/v1/status` poll turned into the rule's observation, and the rule's refusal in the
 * admin API's words. The rule itself is not repeated here.
 */
import { LEARNER_PROMOTION_RULE, observationLag, type LearnerObservation, type LearnerPromotion, type RegistryAdminStatus } from '@orrery/spec';

/**
 * Learner `id` (hex) in one status poll. Observations are keyed by id: a learner not started yet
 * has no name, and its name appears between two polls once it starts.
 */
export function learnerObservation(status: RegistryAdminStatus, id: string, observedAt: Date): LearnerObservation {
  const learner = status.members.find((m) => m.id === id);
  const leader = status.members.find((m) => m.isLeader);
  const healthy = Boolean(learner?.reachable);
  return {
    member: id,
    healthy,
    ...(healthy && learner?.raftAppliedIndex !== undefined ? { appliedIndex: learner.raftAppliedIndex } : {}),
    ...(leader ? { leader: leader.name || leader.id } : {}),
    ...(leader?.raftTerm !== undefined ? { leaderTerm: leader.raftTerm } : {}),
    ...(leader?.raftIndex !== undefined ? { leaderCommittedIndex: leader.raftIndex } : {}),
    observedAt: observedAt.toISOString(),
  };
}

const known = (n: number | null | undefined) => (n === null || n === undefined ? 'unknown' : String(n));

/** The `learner_not_caught_up` message: applied, committed and lag, the rule's reason, and the way out. */
export function notCaughtUpMessage(p: Extract<LearnerPromotion, { ready: false }>, latest: LearnerObservation): string {
  return (
    `learner ${p.member} may not be promoted yet (applied ${known(latest.appliedIndex)}, committed ${known(latest.leaderCommittedIndex)}, lag ${known(observationLag(latest))}): ${p.message}. ` +
    `Retry later, or send force: true to skip the rule (etcd still refuses below ${LEARNER_PROMOTION_RULE.etcdReadyRatio * 100} % of the leader's log)`
  );
}
