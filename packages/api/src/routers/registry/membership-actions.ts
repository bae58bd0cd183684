/**
 * The membership actions the console offers on a cluster as the operator last observed it: for
 * each, its effect on quorum (for the confirmation dialog) and why it must wait, if it must.
 * registry.members returns these so the console only shows them. The waits are the operator's
 * refusals said up front: no step without a leader, one learner at a time, never the last voter,
 * leadership only to a healthy voter, promotion only by the rule (learner-verdict.ts).
 */
import { failuresTolerated, quorumOf, type RegistryMember } from '@orrery/spec';
import type { LearnerVerdict } from './learner-verdict.ts';
import { quorumEffect, type MembershipAction, type QuorumEffect } from './quorum-effect.ts';

type Observed = Pick<RegistryMember, 'name' | 'role' | 'health' | 'isLeader'>;

export interface ActionOffer {
  effect: QuorumEffect;
  /** Why the action must wait (the button is disabled with this); null when it may run now. */
  unavailable: string | null;
}

/** A member's actions; null where the action does not apply to it. */
export interface MemberActions {
  /** A learner, by the promotion rule. */
  promote: ActionOffer | null;
  /** A learner the rule does not pass yet (admin: registry.forcePromote skips the rule). */
  forcePromote: ActionOffer | null;
  /** A voter that does not lead. */
  transferLeader: ActionOffer | null;
  remove: ActionOffer;
}

export interface MembershipActions {
  quorum: { voters: number; healthyVoters: number; quorum: number; tolerates: number };
  addLearner: ActionOffer;
  of(m: Observed, promotion: LearnerVerdict | null): MemberActions;
}

export function membershipActions(members: readonly Observed[]): MembershipActions {
  const voters = members.filter((m) => m.role === 'voter');
  const healthyVoters = voters.filter((m) => m.health === 'healthy').length;
  const learner = members.find((m) => m.role === 'learner');
  const noLeader = members.some((m) => m.isLeader) ? null : 'the cluster has no leader right now';
  const offer = (action: MembershipAction, m: Observed | undefined, unavailable: string | null): ActionOffer => ({
    effect: quorumEffect({ action, voters: voters.length, healthyVoters, ...(m ? { target: { role: m.role, healthy: m.health === 'healthy', isLeader: m.isLeader } } : {}) }),
    unavailable,
  });
  return {
    quorum: { voters: voters.length, healthyVoters, quorum: quorumOf(voters.length), tolerates: failuresTolerated(voters.length) },
    addLearner: offer('add-learner', undefined, noLeader ?? (learner ? `one learner at a time: ${learner.name} is still a learner (promote or remove it first)` : null)),
    of: (m, promotion) => {
      const isLearner = m.role === 'learner';
      const notCaughtUp = promotion?.ready ? null : (promotion?.message ?? `no promotion verdict for ${m.name} yet; wait for the operator's next poll`);
      return {
        promote: isLearner ? offer('promote', m, noLeader ?? notCaughtUp) : null,
        forcePromote: isLearner && !promotion?.ready ? offer('promote', m, noLeader) : null,
        transferLeader: m.role === 'voter' && !m.isLeader ? offer('transfer-leader', m, noLeader ?? (m.health !== 'healthy' ? `${m.name} is ${m.health}: leadership goes only to a healthy voter` : null)) : null,
        // Removing works without a leader too: it is how a broken member goes.
        remove: offer('remove', m, m.role === 'voter' && voters.length === 1 ? `${m.name} is the last voter` : null),
      };
    },
  };
}
