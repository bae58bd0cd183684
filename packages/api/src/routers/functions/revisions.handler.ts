import { FUNCTION_LABEL, revisionNumber, type OrreryFunction, type Revision } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { notRunnableRevisions } from './revision-runnable.ts';
import { FunctionRevisionsInput } from './revisions.schema.ts';

export const revisions = protectedProcedure('viewer', "A function's revisions, oldest first (the timeline), and those that can never serve (notRunnable: their package build failed).")
  .input(FunctionRevisionsInput)
  .query(async ({ ctx, input }) => {
    const r = await storeCall(() => ctx.store.list('Revision', { namespace: input.namespace, labels: { [FUNCTION_LABEL]: input.name } }));
    const items = (r.items as Revision[]).filter((rev) => rev.spec.function === input.name);
    items.sort((a, b) => revisionNumber(a.metadata.name) - revisionNumber(b.metadata.name));
    const fn = (await storeCall(() => ctx.store.get('Function', input.namespace, input.name))) as OrreryFunction | undefined;
    return { items, resourceVersion: r.resourceVersion, notRunnable: notRunnableRevisions(items, fn) };
  });
