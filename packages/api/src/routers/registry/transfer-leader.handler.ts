import { auditedMutation } from '../../trpc.ts';
import { TransferLeaderInput } from './transfer-leader.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

// admin: a leadership change stalls every write of the cluster for an election.
export const transferLeader = auditedMutation('admin', 'registry.transferLeader', 'Request leadership transfer to a voter (any healthy voter when member is omitted).', clusterTarget)
  .input(TransferLeaderInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'transfer-leader', input.member));
