import { notFound, storeCall } from '../../errors.ts';
import { auditedMutation, nsName } from '../../trpc.ts';
import { DeleteFunctionInput } from './delete.schema.ts';

// admin, not operator: deleting takes every revision and its workers with it, and no rollback brings them back.
export const remove = auditedMutation('admin', 'functions.delete', 'Delete a Function; the operator reconciles what it owned.', nsName())
  .input(DeleteFunctionInput)
  .mutation(async ({ ctx, input }) => {
    const before = await storeCall(() => ctx.store.get('Function', input.namespace, input.name));
    if (!before) throw notFound(`Function ${input.namespace}/${input.name}`);
    const deleted = await storeCall(() => ctx.store.delete('Function', input.namespace, input.name, { resourceVersion: input.resourceVersion }));
    if (!deleted) throw notFound(`Function ${input.namespace}/${input.name}`);
    ctx.audit.before = { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion };
    return { deleted: true };
  });
