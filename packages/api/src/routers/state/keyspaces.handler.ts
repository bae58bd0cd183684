import { effectiveKeyspace, effectiveMaxKeys, effectiveMaxValueBytes, StateKeyspaceUsageSchema, type OrreryFunction } from '@orrery/spec';
import { statesvcAdminGet } from '../../clients/statesvc-admin.ts';
import { notFound, storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { KeyspaceUsageInput } from './keyspaces.schema.ts';

export const keyspaces = protectedProcedure('viewer', "Keyspace usage (keys vs maxKeys, bytes, limits) per stateful function, from statesvc's signed admin reads.")
  .input(KeyspaceUsageInput)
  .query(async ({ ctx, input }) => {
    let fns: OrreryFunction[];
    if (input.function) {
      const fn = (await storeCall(() => ctx.store.get('Function', input.namespace, input.function!))) as OrreryFunction | undefined;
      if (!fn) throw notFound(`Function ${input.namespace}/${input.function}`);
      fns = [fn];
    } else {
      fns = (await storeCall(() => ctx.store.list('Function', { namespace: input.namespace }))).items as OrreryFunction[];
    }
    const stateful = fns.filter((f) => f.spec.state);
    const items = await Promise.all(
      stateful.map(async (f) => {
        const keyspace = effectiveKeyspace(f.metadata.name, f.spec.state);
        const q = `/v1/admin/usage?scope-namespace=${encodeURIComponent(f.metadata.namespace)}&scope-keyspace=${encodeURIComponent(keyspace)}`;
        const usage = await statesvcAdminGet(ctx, q, StateKeyspaceUsageSchema);
        return {
          function: f.metadata.name,
          namespace: f.metadata.namespace,
          keyspace,
          keys: usage.keys,
          bytes: usage.bytes,
          // The declaration in the store is the source of truth for limits; statesvc's answer confirms it.
          maxKeys: usage.maxKeys ?? effectiveMaxKeys(f.spec.state),
          maxValueBytes: usage.maxValueBytes ?? effectiveMaxValueBytes(f.spec.state),
          defaultTTL: f.spec.state?.defaultTTL ?? null,
          keysPercent: Math.round((usage.keys / (usage.maxKeys || effectiveMaxKeys(f.spec.state))) * 1000) / 10,
        };
      }),
    );
    return { items };
  });
