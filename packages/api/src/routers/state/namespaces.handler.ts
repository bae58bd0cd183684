import { StateNamespacesResponseSchema } from '@orrery/spec';
import { statesvcAdminGet } from '../../clients/statesvc-admin.ts';
import { protectedProcedure } from '../../trpc.ts';
import { NamespaceUsageInput } from './namespaces.schema.ts';

export const namespaces = protectedProcedure('viewer', 'Quota inspection per namespace (keys, bytes vs byte budget, keyspaces) from statesvc.')
  .input(NamespaceUsageInput)
  .query(async ({ ctx, input }) => {
    const q = input.namespace ? `/v1/admin/namespaces?scope-namespace=${encodeURIComponent(input.namespace)}` : '/v1/admin/namespaces';
    const r = await statesvcAdminGet(ctx, q, StateNamespacesResponseSchema);
    return {
      items: r.namespaces.map((n) => ({ ...n, bytesPercent: n.byteBudget > 0 ? Math.round((n.bytes / n.byteBudget) * 1000) / 10 : null })),
    };
  });
