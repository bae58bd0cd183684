import { auditedMutation } from '../../trpc.ts';
import { PromoteInput } from './promote.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { refuseUnlessCaughtUp } from './learner-verdict.ts';
import { recordRequest } from './record-request.ts';

// Refused (400 learner_not_caught_up) unless the learner passes the promotion rule; registry.forcePromote (admin) skips it.
export const promote = auditedMutation('operator', 'registry.promote', 'Request promotion of a caught-up learner to voter (refused with learner_not_caught_up until it is).', clusterTarget)
  .input(PromoteInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'promote', input.member, { check: (c) => refuseUnlessCaughtUp(c, input.member) }));
