/**
 * Raft's quorum for a RegistryCluster: the votes a write needs and the voter failures the
 * cluster survives. The operator's membership planner (plan-membership.ts), the API's
 * confirmation texts and health all read these.
 */

/**
 * A strict majority of `voters`. Zero voters still need one vote, which no one can give: so
 * `healthy >= quorumOf(n)` is false for an empty cluster, as the operator's Available condition says.
 */
export function quorumOf(voters: number): number {
  return Math.floor(Math.max(0, voters) / 2) + 1;
}

/** Voters that may fail while a majority still answers (never negative). */
export function failuresTolerated(voters: number): number {
  return Math.max(0, voters - quorumOf(voters));
}
