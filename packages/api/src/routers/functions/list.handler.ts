import type { OrreryFunction } from '@orrery/spec';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { ListFunctionsInput } from './list.schema.ts';

export const list = protectedProcedure('viewer', 'Functions (one namespace or all) with spec and status.')
  .input(ListFunctionsInput)
  .query(async ({ ctx, input }) => {
    const r = await storeCall(() => ctx.store.list('Function', { namespace: input.namespace }));
    return { items: r.items as OrreryFunction[], resourceVersion: r.resourceVersion };
  });
