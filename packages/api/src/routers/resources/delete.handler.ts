import { badRequest, storeCall } from '../../errors.ts';
import { auditedMutation } from '../../trpc.ts';
import { DeleteResourceInput } from './delete.schema.ts';

const field = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
const targetOf = (raw: Record<string, unknown>) => `${field(raw.kind, '?')}/${field(raw.namespace, 'default')}/${field(raw.name, '?')}`;

/** Deleting what is not there answers `{deleted: false}` (idempotent, like kubectl --ignore-not-found). */
// admin, like functions.delete: a delete cannot be rolled back (and would otherwise be an operator's way around it).
export const remove = auditedMutation('admin', 'resources.delete', 'Delete an object of any kind but Revision; the operator cleans up what it owned.', targetOf)
  .input(DeleteResourceInput)
  .mutation(async ({ ctx, input }) => {
    if (input.kind === 'Revision') throw badRequest('Revisions belong to their Function: delete the Function instead', [{ path: 'kind', message: 'Revision cannot be deleted on its own' }]);
    const before = await storeCall(() => ctx.store.get(input.kind, input.namespace, input.name));
    const deleted = before ? await storeCall(() => ctx.store.delete(input.kind, input.namespace, input.name, { resourceVersion: input.resourceVersion })) : false;
    ctx.audit.before = before ? { generation: before.metadata.generation, resourceVersion: before.metadata.resourceVersion } : null;
    ctx.audit.after = { deleted };
    return { deleted };
  });
