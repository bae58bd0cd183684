import { auditedMutation } from '../../trpc.ts';
import { PromoteInput } from './promote.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

export const promote = auditedMutation('operator', 'registry.promote', 'Request promotion of a caught-up learner to voter.', clusterTarget)
  .input(PromoteInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'promote', input.member));
