import { auditedMutation } from '../../trpc.ts';
import { RemoveMemberInput } from './remove.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

// admin: removing a member shrinks the quorum; operators may only grow it (addLearner, promote).
export const remove = auditedMutation('admin', 'registry.remove', 'Request removal of a member (the operator refuses if it would break quorum).', clusterTarget)
  .input(RemoveMemberInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'remove', input.member));
