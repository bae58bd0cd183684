import { notFound, storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { GetResourceInput } from './get.schema.ts';

export const get = protectedProcedure('viewer', 'One object of any kind; NOT_FOUND when it does not exist.')
  .input(GetResourceInput)
  .query(async ({ ctx, input }) => {
    const obj = await storeCall(() => ctx.store.get(input.kind, input.namespace, input.name));
    if (!obj) throw notFound(`${input.kind} ${input.namespace}/${input.name}`);
    return obj;
  });
