import { z } from 'zod';

/**
 * When a RegistryCluster learner may be promoted to voter — the one rule the operator's planner,
 * the admin API (`registry.promote`) and the console's promote button all apply. The seed
 * (StellMap) says: a new member joins as a learner and is promoted once its log has caught up
 * (日志追平) and its health checks pass. Here that is, over the last two observations:
 *
 * - the learner is healthy (answered its status call) in both;
 * - its applied index is within `maxLagEntries` (100) of the leader's committed index in both,
 *   and not below `etcdReadyRatio` (90 %) of it (etcd refuses a promotion below that anyway,
 *   which only matters while the log is shorter than 1 000 entries);
 * - both were taken under the same leader and term (a leader change between them resets);
 * - they are two distinct polls, the earlier first.
 *
 * Pure: the observations are plain data. The operator writes each poll's observation of the
 * learner into `status.learnerObservations` (the last two), where the API and the console read
 * them; the operator itself compares the stored one with what it sees now.
 */
export const LEARNER_PROMOTION_RULE = {
  /** The largest lag (leader's committed index − learner's applied index), in raft entries. */
  maxLagEntries: 100,
  /** How many consecutive polls must all be caught up, healthy and under one leader. */
  stablePolls: 2,
  /** etcd's own floor: MemberPromote fails while the learner is below 90 % of the leader. */
  etcdReadyRatio: 0.9,
} as const;

/** One poll's look at one learner and the leader it follows, as the operator saw it. */
export const LearnerObservationSchema = z.object({
  /** The learner's member name. */
  member: z.string(),
  /** It answered its status call in this poll. */
  healthy: z.boolean(),
  /** The learner's raftAppliedIndex. */
  appliedIndex: z.number().int().nonnegative().optional(),
  /** The leader's member name; absent when there was no leader. */
  leader: z.string().optional(),
  /** The leader's raft term (a new term is a leader change even with the same leader). */
  leaderTerm: z.number().int().nonnegative().optional(),
  /** The leader's committed index (etcd's status `raftIndex`). */
  leaderCommittedIndex: z.number().int().nonnegative().optional(),
  /** When it was taken (RFC 3339). */
  observedAt: z.string(),
});
export type LearnerObservation = z.infer<typeof LearnerObservationSchema>;

/** Why a learner may not be promoted yet. */
export type PromotionBlocker =
  | 'no-observation'
  | 'unhealthy'
  | 'no-leader'
  | 'no-index'
  | 'lagging'
  | 'below-etcd-ratio'
  | 'leader-changed'
  | 'not-stable';

export type LearnerPromotion =
  | { ready: true; member: string; lag: number; message: string }
  | {
      ready: false;
      member: string;
      /** Entries behind the leader in the latest observation; null when it cannot be told. */
      lag: number | null;
      blocker: PromotionBlocker;
      /** What is wrong and what to wait for, in words. */
      message: string;
    };

/** Entries the learner's applied index is behind the leader's committed index; null when unknown. */
export function observationLag(o: LearnerObservation): number | null {
  if (o.appliedIndex === undefined || o.leaderCommittedIndex === undefined) return null;
  return Math.max(0, o.leaderCommittedIndex - o.appliedIndex);
}

const RULE_WORDS = `${LEARNER_PROMOTION_RULE.maxLagEntries} entries of the leader's committed index, healthy, for ${LEARNER_PROMOTION_RULE.stablePolls} polls in a row under one leader`;

/** What keeps one observation from counting as caught up, or undefined when it counts. */
export function observationBlocker(o: LearnerObservation): { blocker: PromotionBlocker; message: string } | undefined {
  const who = `learner ${o.member}`;
  if (!o.healthy) return { blocker: 'unhealthy', message: `${who} is not answering its status call; wait until it is healthy again` };
  if (o.leader === undefined) return { blocker: 'no-leader', message: `the cluster has no leader, so ${who}'s progress cannot be measured; wait for a leader` };
  const lag = observationLag(o);
  if (lag === null) return { blocker: 'no-index', message: `${who} or the leader ${o.leader} has not reported its raft index yet; wait for the next poll` };
  const behind = `${who} is ${lag} entries behind the leader ${o.leader} (applied ${o.appliedIndex} of committed ${o.leaderCommittedIndex})`;
  if (lag > LEARNER_PROMOTION_RULE.maxLagEntries) {
    return { blocker: 'lagging', message: `${behind}; wait until it is within ${RULE_WORDS}` };
  }
  if (o.appliedIndex! < LEARNER_PROMOTION_RULE.etcdReadyRatio * o.leaderCommittedIndex!) {
    return { blocker: 'below-etcd-ratio', message: `${behind}, below the ${LEARNER_PROMOTION_RULE.etcdReadyRatio * 100} % etcd needs to promote; wait until it catches up` };
  }
  return undefined;
}

const sameLeader = (a: LearnerObservation, b: LearnerObservation) => a.leader === b.leader && a.leaderTerm === b.leaderTerm;

/**
 * Whether `member` may be promoted, from the two most recent observations of it (`previous`
 * older than `current`). Observations of another member do not count.
 */
export function learnerPromotion(member: string, previous: LearnerObservation | undefined, current: LearnerObservation | undefined): LearnerPromotion {
  const mine = (o: LearnerObservation | undefined) => (o && o.member === member ? o : undefined);
  const cur = mine(current);
  if (!cur) return { ready: false, member, lag: null, blocker: 'no-observation', message: `learner ${member} has not been observed yet; wait for the operator's next poll` };
  const lag = observationLag(cur);
  const now = observationBlocker(cur);
  if (now) return { ready: false, member, lag, ...now };
  const prev = mine(previous);
  const inOrder = prev && Date.parse(prev.observedAt) < Date.parse(cur.observedAt);
  const waitOne = `wait for one more poll (the rule: within ${RULE_WORDS})`;
  if (!prev || !inOrder) {
    return { ready: false, member, lag, blocker: 'not-stable', message: `learner ${member} is caught up (${lag} entries behind) in one poll only; ${waitOne}` };
  }
  if (!sameLeader(prev, cur)) {
    return {
      ready: false,
      member,
      lag,
      blocker: 'leader-changed',
      message: `leadership changed between the last two polls (${prev.leader ?? 'none'}, term ${prev.leaderTerm ?? '?'} → ${cur.leader}, term ${cur.leaderTerm ?? '?'}); ${waitOne}`,
    };
  }
  const before = observationBlocker(prev);
  if (before) {
    return { ready: false, member, lag, blocker: 'not-stable', message: `learner ${member} is caught up now (${lag} entries behind) but was not in the previous poll; ${waitOne}` };
  }
  return { ready: true, member, lag: lag!, message: `learner ${member} is caught up: ${lag} entries behind the leader ${cur.leader}, healthy, for ${LEARNER_PROMOTION_RULE.stablePolls} polls` };
}

/** The last two observations of `member` from a history (oldest first), as `learnerPromotion` takes them. */
export function lastTwoObservations(history: readonly LearnerObservation[] | undefined, member: string): [LearnerObservation | undefined, LearnerObservation | undefined] {
  const mine = (history ?? []).filter((o) => o.member === member);
  return [mine.at(-2), mine.at(-1)];
}

/** `history` with `next` appended, keeping only the last `stablePolls` observations of the same member. */
export function appendObservation(history: readonly LearnerObservation[] | undefined, next: LearnerObservation): LearnerObservation[] {
  const same = (history ?? []).filter((o) => o.member === next.member);
  return [...same, next].slice(-LEARNER_PROMOTION_RULE.stablePolls);
}
