/**
 * The promotion rule of @orrery/spec (registry-learner-promotion.ts) over what the operator
 * recorded in status.learnerObservations: what registry.members shows per learner and what
 * registry.promote checks before it records a request. The operator checks the same rule again
 * when it executes the request (the observations may have moved on by then).
 */
import {
  LEARNER_PROMOTION_RULE,
  lastTwoObservations,
  learnerPromotion,
  observationBlocker,
  type PromotionBlocker,
  type RegistryCluster,
} from '@orrery/spec';
import { badRequest } from '../../errors.ts';

export interface LearnerVerdict {
  ready: boolean;
  /** Why not, when not ready (the rule's blocker). */
  blocker?: PromotionBlocker;
  /** Entries behind the leader's committed index in the latest poll; null when unknown. */
  lag: number | null;
  /** The learner's applied index and the leader's committed index in the latest poll. */
  appliedIndex: number | null;
  committedIndex: number | null;
  /** Consecutive polls (of the `required`) that saw it caught up, ending with the latest. */
  polls: number;
  required: number;
  /** The rule's words: what holds, or what is wrong and what to wait for. */
  message: string;
  /** `lag` in words: `8000 entries behind`, `1 entry behind`, `lag unknown`. */
  lagText: string;
  /** `polls` in words: `caught up in 1 of 2 polls`. */
  pollsText: string;
}

/** The rule's verdict on learner `member` (its name) from the cluster's recorded observations. */
export function learnerVerdict(c: RegistryCluster, member: string): LearnerVerdict {
  const [previous, current] = lastTwoObservations(c.status?.learnerObservations, member);
  const p = learnerPromotion(member, previous, current);
  const caughtUpNow = current !== undefined && observationBlocker(current) === undefined;
  const polls = p.ready ? LEARNER_PROMOTION_RULE.stablePolls : caughtUpNow ? 1 : 0;
  return {
    ready: p.ready,
    ...(p.ready ? {} : { blocker: p.blocker }),
    lag: p.lag,
    appliedIndex: current?.appliedIndex ?? null,
    committedIndex: current?.leaderCommittedIndex ?? null,
    polls,
    required: LEARNER_PROMOTION_RULE.stablePolls,
    message: p.message,
    lagText: p.lag === null ? 'lag unknown' : `${p.lag} ${p.lag === 1 ? 'entry' : 'entries'} behind`,
    pollsText: `caught up in ${polls} of ${LEARNER_PROMOTION_RULE.stablePolls} polls`,
  };
}

const known = (n: number | null) => (n === null ? 'unknown' : String(n));

/**
 * Throws the refusal of a promote request for `member` (name or etcd id): 400 `not_a_learner`
 * for a voter, 400 `learner_not_caught_up` (naming applied, committed and lag) for a learner the
 * rule does not pass yet. A member the operator has not listed is left to the NOT_FOUND check.
 */
export function refuseUnlessCaughtUp(c: RegistryCluster, member: string): void {
  const row = c.status?.members?.find((m) => m.name === member || m.id === member);
  if (!row) return;
  if (row.role !== 'learner') {
    const message = `${row.name} is already a voter; only a learner can be promoted`;
    throw badRequest(message, [{ path: 'member', message, reason: 'not_a_learner' }]);
  }
  const v = learnerVerdict(c, row.name);
  if (v.ready) return;
  const message =
    `learner_not_caught_up: ${row.name} may not be promoted yet (applied ${known(v.appliedIndex)}, committed ${known(v.committedIndex)}, lag ${known(v.lag)}, ` +
    `${v.pollsText}): ${v.message}. An admin may skip the rule with registry.forcePromote (etcd still refuses below ${LEARNER_PROMOTION_RULE.etcdReadyRatio * 100} %).`;
  throw badRequest(message, [{ path: 'member', message, reason: 'learner_not_caught_up' }]);
}
