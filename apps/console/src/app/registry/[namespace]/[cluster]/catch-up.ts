/** etcd refuses to promote a learner whose applied index is below 90 % of the leader's raft index. */
export const PROMOTE_THRESHOLD = 0.9;

export interface CatchUp {
  caughtUp: boolean;
  /** Whole percent of the leader's index the learner has applied; null when unknown. */
  percent: number | null;
  /** Why promote must wait, for the disabled button's title. */
  reason?: string;
}

/** Whether a learner may be promoted now, from the indexes the operator last observed. */
export function learnerCatchUp(appliedIndex: number | undefined, leaderRaftIndex: number | undefined): CatchUp {
  if (leaderRaftIndex === undefined) return { caughtUp: false, percent: null, reason: 'no leader index to compare with yet' };
  if (appliedIndex === undefined) return { caughtUp: false, percent: null, reason: 'the learner has not reported its applied index yet' };
  const percent = leaderRaftIndex > 0 ? Math.min(100, Math.floor((appliedIndex / leaderRaftIndex) * 100)) : 100;
  if (appliedIndex >= PROMOTE_THRESHOLD * leaderRaftIndex) return { caughtUp: true, percent };
  return {
    caughtUp: false,
    percent,
    reason: `still catching up: applied ${appliedIndex} of the leader's ${leaderRaftIndex} (${percent} %, needs ${PROMOTE_THRESHOLD * 100} %)`,
  };
}
