import { TRPCError } from '@trpc/server';
import type { Revision } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { auditedMutation, nsName } from '../../trpc.ts';
import { RollbackInput } from './rollback.schema.ts';
import { setTraffic } from './set-traffic.ts';

export const rollback = auditedMutation('operator', 'functions.rollback', 'Send 100 % of traffic to one existing revision of the function.', nsName())
  .input(RollbackInput)
  .mutation(async ({ ctx, input }) => {
    const rev = (await storeCall(() => ctx.store.get('Revision', input.namespace, input.revision))) as Revision | undefined;
    if (!rev || rev.spec.function !== input.name) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `revision ${input.revision} of function ${input.namespace}/${input.name} not found; see functions.revisions` });
    }
    return setTraffic(ctx, input, [{ revisionName: input.revision, percent: 100 }]);
  });
