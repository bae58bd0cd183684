import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { ListResourcesInput } from './list.schema.ts';

export const list = protectedProcedure('viewer', 'Objects of one kind (one namespace or all), with spec and status: what `orrery get` shows.')
  .input(ListResourcesInput)
  .query(async ({ ctx, input }) => storeCall(() => ctx.store.list(input.kind, { namespace: input.namespace, labels: input.labels })));
