import { auditedMutation } from '../../trpc.ts';
import { PromoteInput } from './promote.schema.ts';
import { clusterTarget } from './cluster-target.ts';
import { recordRequest } from './record-request.ts';

// admin: a learner promoted before it caught up votes while it is behind, which can cost the quorum.
export const forcePromote = auditedMutation(
  'admin',
  'registry.forcePromote',
  "Request promotion of a learner without the catch-up rule (etcd's own 90 % floor still applies).",
  clusterTarget,
)
  .input(PromoteInput)
  .mutation(({ ctx, input }) => recordRequest(ctx, input, 'promote', input.member, { force: true }));
