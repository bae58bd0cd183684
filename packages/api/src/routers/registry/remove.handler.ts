import { auditedMutation } from '../../trpc.ts';
import { RemoveMemberInput } from './remove.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

export const remove = auditedMutation('operator', 'registry.remove', 'Request removal of a member (the operator refuses if it would break quorum).', clusterTarget)
  .input(RemoveMemberInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'remove', input.member));
