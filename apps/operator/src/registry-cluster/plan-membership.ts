/**
 * The membership planner: from the desired voter count and what the cluster looks like now, the
 * next single safe step. Pure; the reconciler observes, asks, executes one step, observes again.
 * Rules (etcd's and ours): one learner at a time; promote only a learner that has caught up by
 * the promotion rule of @orrery/spec (within 100 entries of the leader's committed index,
 * healthy, in this poll and the previous one, under one leader); remove one voter at a time and
 * only while the remaining healthy voters still form a quorum of the smaller cluster; never act
 * without a leader.
 */
import { LEARNER_PROMOTION_RULE, learnerPromotion, quorumOf, type LearnerObservation, type LearnerPromotion } from '@orrery/spec';

export interface ObservedMember {
  name: string;
  /** From the name `<cluster>-<ordinal>`; scale-down removes the highest first. */
  ordinal: number;
  /** etcd member id in hex; undefined when we have a local identity that etcd does not know. */
  id?: string;
  role: 'voter' | 'learner';
  /** In etcd's member list. */
  inCluster: boolean;
  /** Answered a status call just now. */
  healthy: boolean;
  isLeader: boolean;
  raftAppliedIndex?: number;
  /** Since when it has been unhealthy (ms epoch); undefined while healthy. */
  unhealthySinceMs?: number;
  /** We hold its identity and data dir (false: a member added by someone else or half-added). */
  local: boolean;
}

export interface PlanInput {
  desiredVoters: number;
  members: ObservedMember[];
  /** The leader's raftIndex (its committed index), the yardstick for a learner's progress. */
  leaderRaftIndex?: number;
  /** The leader's raft term: a new term between two polls resets a learner's catch-up. */
  leaderTerm?: number;
  /**
   * The learner as the previous poll saw it (status.learnerObservations): with this poll's look
   * (`learnerObservation`) the two observations the promotion rule needs.
   */
  previousLearnerObservation?: LearnerObservation;
  nowMs: number;
  replaceUnhealthyAfterMs?: number;
  /**
   * Members added by an explicit add-learner request, on top of `desiredVoters`: such a learner
   * is held (never auto-promoted) until a promote request, and such a voter is not scaled away.
   */
  manualMembers?: readonly string[];
}

export type MembershipStep =
  | { kind: 'bootstrap'; names: string[]; message: string }
  | { kind: 'add-learner'; name: string; ordinal: number; message: string }
  | { kind: 'wait'; member?: string; /** catching-up: entries behind the leader, when known. */ lag?: number; reason: WaitReason; message: string }
  | { kind: 'promote'; member: string; message: string }
  | { kind: 'remove'; member: string; reason: 'scale-down' | 'replace' | 'stray'; message: string }
  | { kind: 'transfer-leader'; from: string; to: string; message: string }
  | { kind: 'steady'; message: string };

export type WaitReason = 'catching-up' | 'learner-unhealthy' | 'no-leader' | 'quorum-at-risk' | 'member-unhealthy';

export function memberName(cluster: string, ordinal: number): string {
  return `${cluster}-${ordinal}`;
}

/** This poll's look at `learner` and the leader, in the shape the promotion rule reads and status keeps. */
export function learnerObservation(input: PlanInput, learner: ObservedMember): LearnerObservation {
  const leader = input.members.find((m) => m.inCluster && m.isLeader && m.healthy);
  return {
    member: learner.name,
    healthy: learner.healthy,
    ...(learner.raftAppliedIndex !== undefined ? { appliedIndex: learner.raftAppliedIndex } : {}),
    ...(leader ? { leader: leader.name } : {}),
    ...(leader && input.leaderTerm !== undefined ? { leaderTerm: input.leaderTerm } : {}),
    ...(leader && input.leaderRaftIndex !== undefined ? { leaderCommittedIndex: input.leaderRaftIndex } : {}),
    observedAt: new Date(input.nowMs).toISOString(),
  };
}

/** Whether `learner` may be promoted now: the shared rule over the previous poll and this one. */
export function promotionOf(input: PlanInput, learner: ObservedMember): LearnerPromotion {
  return learnerPromotion(learner.name, input.previousLearnerObservation, learnerObservation(input, learner));
}

/** Removing `m` leaves enough healthy voters for the quorum of the smaller cluster. */
export function removalKeepsQuorum(members: readonly ObservedMember[], m: ObservedMember): boolean {
  const voters = members.filter((x) => x.inCluster && x.role === 'voter');
  if (m.role !== 'voter') return voters.filter((x) => x.healthy).length >= quorumOf(voters.length);
  const remaining = voters.filter((x) => x.name !== m.name);
  if (remaining.length === 0) return false;
  return remaining.filter((x) => x.healthy).length >= quorumOf(remaining.length);
}

export function lowestFreeOrdinal(members: readonly ObservedMember[]): number {
  const used = new Set(members.map((m) => m.ordinal));
  let n = 1;
  while (used.has(n)) n++;
  return n;
}

function unhealthyFor(m: ObservedMember, nowMs: number): number {
  return m.healthy || m.unhealthySinceMs === undefined ? 0 : nowMs - m.unhealthySinceMs;
}

export function planMembership(cluster: string, input: PlanInput): MembershipStep {
  const { nowMs, replaceUnhealthyAfterMs } = input;
  const members = input.members;
  const inCluster = members.filter((m) => m.inCluster);
  const manual = new Set(input.manualMembers ?? []);
  // Voters added by request count on top of spec.replicas, so the planner does not undo them.
  const desiredVoters = input.desiredVoters + inCluster.filter((m) => m.role === 'voter' && manual.has(m.name)).length;

  if (members.length === 0) {
    const names = Array.from({ length: desiredVoters }, (_, i) => memberName(cluster, i + 1));
    return { kind: 'bootstrap', names, message: `creating ${desiredVoters} members: ${names.join(', ')}` };
  }

  const voters = inCluster.filter((m) => m.role === 'voter');
  const healthyVoters = voters.filter((m) => m.healthy);
  const leader = inCluster.find((m) => m.isLeader && m.healthy);
  if (!leader || healthyVoters.length < quorumOf(voters.length)) {
    return {
      kind: 'wait',
      reason: 'no-leader',
      message: `no quorum: ${healthyVoters.length} of ${voters.length} voters healthy (need ${quorumOf(voters.length)}); membership changes wait for a leader`,
    };
  }

  // A learner etcd knows but we never started (a crash between MemberAdd and start): take it out.
  const stray = inCluster.find((m) => m.role === 'learner' && !m.local);
  if (stray) return { kind: 'remove', member: stray.name || stray.id || '?', reason: 'stray', message: `removing learner ${stray.name || stray.id} that this operator does not run` };

  // etcd allows one learner at a time: finish it before anything else.
  const learner = inCluster.find((m) => m.role === 'learner');
  if (learner) {
    const promotion = promotionOf(input, learner);
    if (learner.healthy && manual.has(learner.name)) {
      const where = promotion.ready ? 'is caught up' : `is ${promotion.lag ?? 'an unknown number of'} entries behind the leader`;
      return { kind: 'steady', message: `learner ${learner.name} (added by request) ${where} and waits for a promote request` };
    }
    if (promotion.ready) {
      return { kind: 'promote', member: learner.name, message: `promoting learner ${learner.name} (${promotion.lag} entries behind the leader, caught up for ${LEARNER_PROMOTION_RULE.stablePolls} polls)` };
    }
    if (!learner.healthy) {
      if (replaceUnhealthyAfterMs !== undefined && unhealthyFor(learner, nowMs) > replaceUnhealthyAfterMs) {
        return { kind: 'remove', member: learner.name, reason: 'replace', message: `removing learner ${learner.name}: unhealthy for ${Math.round(unhealthyFor(learner, nowMs) / 1000)} s` };
      }
      return { kind: 'wait', member: learner.name, reason: 'learner-unhealthy', message: `waiting for learner ${learner.name} to start answering` };
    }
    return { kind: 'wait', member: learner.name, ...(promotion.lag !== null ? { lag: promotion.lag } : {}), reason: 'catching-up', message: `adding learner ${learner.name}: ${promotion.message}` };
  }

  // Replace a voter that has been down too long, if the rest keep quorum without it.
  if (replaceUnhealthyAfterMs !== undefined) {
    const dead = voters
      .filter((m) => !m.healthy && unhealthyFor(m, nowMs) > replaceUnhealthyAfterMs)
      .sort((a, b) => b.ordinal - a.ordinal)[0];
    if (dead) {
      if (removalKeepsQuorum(inCluster, dead)) {
        return { kind: 'remove', member: dead.name, reason: 'replace', message: `replacing ${dead.name}: unhealthy for ${Math.round(unhealthyFor(dead, nowMs) / 1000)} s` };
      }
      return { kind: 'wait', member: dead.name, reason: 'quorum-at-risk', message: `cannot replace ${dead.name}: removing it would leave too few healthy voters` };
    }
  }

  if (voters.length < desiredVoters) {
    const ordinal = lowestFreeOrdinal(inCluster);
    const name = memberName(cluster, ordinal);
    return { kind: 'add-learner', name, ordinal, message: `adding learner ${name} (${voters.length} of ${desiredVoters} voters)` };
  }

  if (voters.length > desiredVoters) {
    // Scale-down takes spec-owned members first (highest ordinal); request-added ones go by request.
    const victim = [...voters].sort((a, b) => Number(manual.has(a.name)) - Number(manual.has(b.name)) || b.ordinal - a.ordinal)[0]!;
    if (!removalKeepsQuorum(inCluster, victim)) {
      return { kind: 'wait', member: victim.name, reason: 'quorum-at-risk', message: `scale-down paused: removing ${victim.name} would leave too few healthy voters` };
    }
    if (victim.isLeader) {
      const to = healthyVoters.filter((m) => m.name !== victim.name).sort((a, b) => a.ordinal - b.ordinal)[0];
      if (to) return { kind: 'transfer-leader', from: victim.name, to: to.name, message: `moving leadership from ${victim.name} to ${to.name} before removing it` };
    }
    return { kind: 'remove', member: victim.name, reason: 'scale-down', message: `removing voter ${victim.name} (${voters.length} → ${voters.length - 1} of ${desiredVoters})` };
  }

  const sick = voters.filter((m) => !m.healthy);
  if (sick.length > 0) {
    return { kind: 'wait', reason: 'member-unhealthy', member: sick[0]!.name, message: `${sick.map((m) => m.name).join(', ')} not answering; ${healthyVoters.length} of ${voters.length} voters healthy` };
  }
  return { kind: 'steady', message: `${voters.length} voters healthy, leader ${leader.name}` };
}
