/**
 * What a membership action does to a Raft cluster's quorum, in words for the console's
 * confirmation dialog (registry.members returns it per action). Pure; the quorum arithmetic is
 * @orrery/spec's (registry-quorum.ts), the formula the operator's planner uses.
 */
import { failuresTolerated, quorumOf } from '@orrery/spec';

export type MembershipAction = 'add-learner' | 'promote' | 'remove' | 'transfer-leader';

export interface QuorumEffectInput {
  action: MembershipAction;
  /** Voting members now. */
  voters: number;
  /** Voters that answered their last health check; defaults to all of them. */
  healthyVoters?: number;
  /** The member the action names (remove: which role it has; transfer-leader: must be a voter). */
  target?: { role: 'voter' | 'learner'; healthy?: boolean; isLeader?: boolean };
}

export interface QuorumEffect {
  votersBefore: number;
  quorumBefore: number;
  votersAfter: number;
  quorumAfter: number;
  /** How many voters may fail after the action with the cluster still writable. */
  toleratesAfter: number;
  /** One sentence: "3 voters → quorum 2; removing a voter leaves 2 voters, quorum 2, tolerates 0 failures". */
  summary: string;
  /** Set when the action leaves the cluster fragile or the operator will refuse it. */
  warning?: string;
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function describe(voters: number): string {
  return `${plural(voters, 'voter')}, quorum ${quorumOf(voters)}, tolerates ${plural(failuresTolerated(voters), 'failure')}`;
}

export function quorumEffect(input: QuorumEffectInput): QuorumEffect {
  const before = Math.max(0, input.voters);
  const healthy = Math.min(before, input.healthyVoters ?? before);
  const targetVotes = input.target?.role === 'voter';
  let after = before;
  let healthyAfter = healthy;
  let change: string;
  switch (input.action) {
    case 'add-learner':
      change = `adding a learner keeps ${describe(after)} (a learner replicates but does not vote)`;
      break;
    case 'promote':
      after = before + 1;
      healthyAfter = healthy + (input.target?.healthy === false ? 0 : 1);
      change = `promoting the learner makes ${describe(after)}`;
      break;
    case 'remove':
      if (targetVotes) {
        after = before - 1;
        healthyAfter = healthy - (input.target?.healthy === false ? 0 : 1);
        change = `removing a voter leaves ${describe(after)}`;
      } else {
        change = `removing a learner keeps ${describe(after)}`;
      }
      break;
    case 'transfer-leader':
      change = `moving leadership keeps ${describe(after)}; writes pause for about one election while the new leader takes over`;
      break;
  }
  const effect: QuorumEffect = {
    votersBefore: before,
    quorumBefore: quorumOf(before),
    votersAfter: after,
    quorumAfter: quorumOf(after),
    toleratesAfter: failuresTolerated(after),
    summary: `${plural(before, 'voter')} → quorum ${quorumOf(before)}; ${change}`,
  };
  const warning = warningFor(input, after, healthyAfter);
  if (warning) effect.warning = warning;
  return effect;
}

function warningFor(input: QuorumEffectInput, after: number, healthyAfter: number): string | undefined {
  if (input.action === 'remove' && input.target?.role === 'voter' && after === 0) return 'this is the last voter: the operator refuses to remove it';
  if (input.action === 'transfer-leader' && input.target?.role === 'learner') return 'a learner cannot lead: promote it first';
  if (input.action === 'transfer-leader' && input.target?.isLeader) return 'this member already leads';
  if (after > 0 && healthyAfter < quorumOf(after)) {
    return `only ${plural(healthyAfter, 'healthy voter')} would remain for a quorum of ${quorumOf(after)}: the cluster could not accept writes, so the operator refuses`;
  }
  if (input.action === 'remove' && input.target?.role === 'voter' && failuresTolerated(after) === 0) return 'afterwards one more failure stops writes';
  if (input.action === 'promote' && after % 2 === 0) {
    return `an even number of voters tolerates no more failures than ${after - 1} (${plural(failuresTolerated(after), 'failure')}) and needs a bigger quorum`;
  }
  return undefined;
}
