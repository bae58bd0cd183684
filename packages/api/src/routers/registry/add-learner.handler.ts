import { auditedMutation } from '../../trpc.ts';
import { AddLearnerInput } from './add-learner.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

export const addLearner = auditedMutation('operator', 'registry.addLearner', 'Request a new learner member (the operator adds it; it votes only after promote).', clusterTarget)
  .input(AddLearnerInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'add-learner', input.member));
