/**
 * RegistryCluster status from one observation and the step taken: the member table, the leader,
 * and conditions Available / Progressing / Degraded whose messages say what is going on, plus
 * kstatus's Reconciling while a membership change is under way or there is no quorum.
 */
import { quorumOf, type Condition, type LearnerObservation, type RegistryCluster, type RegistryMember } from '@orrery/spec';
import { setCondition } from '../reconcile/conditions.ts';
import { withProgress } from '../reconcile/kstatus-conditions.ts';
import type { MembershipStep } from './plan-membership.ts';

type Status = NonNullable<RegistryCluster['status']>;

export interface StatusInput {
  prev: Status | undefined;
  generation: number | undefined;
  desiredVoters: number;
  members: RegistryMember[];
  step: MembershipStep;
  /** Set when the step just failed (etcd refused, timed out). */
  stepError?: string;
  endpoint?: string;
  lastRequest?: Status['lastRequest'];
  handledRequests?: string[];
  manualMembers?: string[];
  /** The learner in the last polls (oldest first), for the promotion rule; absent without a learner. */
  learnerObservations?: LearnerObservation[];
  requestProblems: string[];
  now: Date;
}

const PROGRESSING_KINDS = new Set(['bootstrap', 'add-learner', 'promote', 'remove', 'transfer-leader']);

export function buildClusterStatus(i: StatusInput): Status {
  const voters = i.members.filter((m) => m.role === 'voter');
  const healthyVoters = voters.filter((m) => m.health === 'healthy');
  const leader = i.members.find((m) => m.isLeader);
  const available = !!leader && voters.length > 0 && healthyVoters.length >= quorumOf(voters.length);
  let conditions: Condition[] | undefined = i.prev?.conditions;
  conditions = setCondition(
    conditions,
    available
      ? { type: 'Available', status: 'True', reason: 'QuorumHealthy', message: `leader ${leader.name}; ${healthyVoters.length} of ${voters.length} voters healthy` }
      : { type: 'Available', status: 'False', reason: 'NoQuorum', message: voters.length ? `${healthyVoters.length} of ${voters.length} voters healthy, no leader` : 'no members yet' },
    i.now,
  );
  const moving = PROGRESSING_KINDS.has(i.step.kind) || (i.step.kind === 'wait' && i.step.reason === 'catching-up') || voters.length !== i.desiredVoters + voters.filter((m) => i.manualMembers?.includes(m.name)).length;
  conditions = setCondition(
    conditions,
    i.stepError
      ? { type: 'Progressing', status: 'True', reason: 'StepFailed', message: `${i.step.message}: ${i.stepError}` }
      : moving
        ? { type: 'Progressing', status: 'True', reason: reasonOf(i.step), message: i.step.message }
        : { type: 'Progressing', status: 'False', reason: 'Steady', message: i.step.message },
    i.now,
  );
  const sick = i.members.filter((m) => m.health !== 'healthy');
  const degraded: string[] = [];
  if (sick.length) degraded.push(`unhealthy: ${sick.map((m) => m.name || m.id).join(', ')}`);
  if (i.requestProblems.length) degraded.push(...i.requestProblems);
  if (i.step.kind === 'wait' && (i.step.reason === 'quorum-at-risk' || i.step.reason === 'no-leader')) degraded.push(i.step.message);
  conditions = setCondition(
    conditions,
    degraded.length
      ? { type: 'Degraded', status: 'True', reason: sick.length ? 'MemberUnhealthy' : i.requestProblems.length ? 'BadRequest' : 'QuorumAtRisk', message: degraded.join('; ') }
      : { type: 'Degraded', status: 'False', reason: 'AllHealthy', message: `${i.members.length} members healthy` },
    i.now,
  );
  if (i.lastRequest) {
    conditions = setCondition(
      conditions,
      {
        type: 'RequestHandled',
        status: i.lastRequest.outcome === 'succeeded' ? 'True' : 'False',
        reason: i.lastRequest.outcome === 'succeeded' ? 'Succeeded' : i.lastRequest.outcome === 'rejected' ? 'Rejected' : 'Failed',
        message: `${i.lastRequest.id} (${i.lastRequest.action}${i.lastRequest.member ? ` ${i.lastRequest.member}` : ''}): ${i.lastRequest.message}`,
      },
      i.now,
    );
  }
  // kstatus reads no Available/Progressing: without Reconciling a cluster mid-scale or without
  // quorum would read Current. A failed step is retried on the next pass, so it is not Stalled.
  const progressing = conditions.find((c) => c.type === 'Progressing' && c.status === 'True');
  const availability = conditions.find((c) => c.type === 'Available')!;
  conditions = withProgress(
    conditions,
    progressing
      ? { state: 'reconciling', reason: progressing.reason ?? 'Progressing', message: progressing.message ?? '' }
      : !available
        ? { state: 'reconciling', reason: availability.reason ?? 'NoQuorum', message: availability.message ?? '' }
        : { state: 'done' },
    i.now,
  );
  return {
    conditions,
    observedGeneration: i.generation,
    members: i.members,
    leader: leader?.name,
    endpoint: i.endpoint,
    readyReplicas: healthyVoters.length,
    lastRequest: i.lastRequest,
    handledRequests: i.handledRequests,
    ...(i.manualMembers?.length ? { manualMembers: i.manualMembers } : {}),
    ...(i.learnerObservations?.length ? { learnerObservations: i.learnerObservations } : {}),
  };
}

function reasonOf(step: MembershipStep): string {
  switch (step.kind) {
    case 'bootstrap':
      return 'Bootstrapping';
    case 'add-learner':
      return 'AddingLearner';
    case 'promote':
      return 'PromotingLearner';
    case 'remove':
      return step.reason === 'scale-down' ? 'RemovingMember' : 'ReplacingMember';
    case 'transfer-leader':
      return 'TransferringLeader';
    case 'wait':
      return step.reason === 'catching-up' ? 'LearnerCatchingUp' : 'Waiting';
    case 'steady':
      return 'Scaling';
  }
}
