import { TRPCError } from '@trpc/server';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { auditedMutation, nsName } from '../../trpc.ts';
import { refuseUnlessRunnable } from './revision-runnable.ts';
import { RollbackInput } from './rollback.schema.ts';
import { setTraffic } from './set-traffic.ts';

export const rollback = auditedMutation('operator', 'functions.rollback', 'Send 100 % of traffic to one existing revision of the function (not one whose package build failed: 400 revision_not_runnable).', nsName())
  .input(RollbackInput)
  .mutation(async ({ ctx, input }) => {
    const rev = (await storeCall(() => ctx.store.get('Revision', input.namespace, input.revision))) as Revision | undefined;
    if (!rev || rev.spec.function !== input.name) {
      throw new TRPCError({ code: 'NOT_FOUND', message: `revision ${input.revision} of function ${input.namespace}/${input.name} not found; see functions.revisions` });
    }
    // All traffic to a revision whose build failed would turn every request into an error.
    const fn = (await storeCall(() => ctx.store.get('Function', input.namespace, input.name))) as OrreryFunction | undefined;
    refuseUnlessRunnable(rev, fn);
    return setTraffic(ctx, input, [{ revisionName: input.revision, percent: 100 }]);
  });
