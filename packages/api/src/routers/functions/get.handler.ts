import type { OrreryFunction } from '@orrery/spec';
import { notFound, storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { GetFunctionInput } from './get.schema.ts';

export const get = protectedProcedure('viewer', 'One Function with spec and status.')
  .input(GetFunctionInput)
  .query(async ({ ctx, input }) => {
    const fn = await storeCall(() => ctx.store.get('Function', input.namespace, input.name));
    if (!fn) throw notFound(`Function ${input.namespace}/${input.name}`);
    return fn as OrreryFunction;
  });
