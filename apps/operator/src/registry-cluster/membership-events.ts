/**
 * The Events a RegistryCluster reconcile records for a membership change it made — a planned
 * step or a one-click request — so `kubectl describe registrycluster` tells the story.
 */
import type { OperatorEvent } from '../events/event-recorder.ts';
import type { MembershipStep } from './plan-membership.ts';
import type { RequestAction } from './plan-request.ts';

/** A planned step after it ran (`error`: why it failed); nothing for steps that change no membership. */
export function stepEvent(step: MembershipStep, error?: string): OperatorEvent | undefined {
  if (step.kind === 'steady' || step.kind === 'wait' || step.kind === 'bootstrap') return undefined;
  if (error !== undefined) return { reason: 'MembershipStepFailed', message: `${step.kind} failed: ${error}` };
  switch (step.kind) {
    case 'add-learner':
      return { reason: 'LearnerAdded', message: `added ${step.name} as a learner: ${step.message}` };
    case 'promote':
      return { reason: 'LearnerPromoted', message: `promoted ${step.member} to voter: ${step.message}` };
    case 'remove':
      return { reason: 'MemberRemoved', message: `removed ${step.member} (${step.reason}): ${step.message}` };
    case 'transfer-leader':
      return { reason: 'LeaderTransferred', message: `leadership moved from ${step.from} to ${step.to}: ${step.message}` };
  }
}

const SUCCEEDED: Record<RequestAction, OperatorEvent['reason']> = {
  'add-learner': 'LearnerAdded',
  promote: 'LearnerPromoted',
  remove: 'MemberRemoved',
  replace: 'MemberRemoved',
  'transfer-leader': 'LeaderTransferred',
};

/** A one-click request (`orrery.dev/requests`) after it was handled. */
export function requestEvent(req: { id: string; action: RequestAction }, outcome: 'succeeded' | 'failed' | 'rejected', message: string): OperatorEvent {
  if (outcome === 'succeeded') return { reason: SUCCEEDED[req.action], message: `request ${req.id}: ${message}` };
  return { reason: 'MembershipStepFailed', message: `request ${req.id} (${req.action}) ${outcome}: ${message}` };
}
