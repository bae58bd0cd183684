import type { StateSync } from '@orrery/spec';
import { isBackingOff, syncPeriodSeconds } from './backing-off.ts';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { ListStateSyncInput } from './list.schema.ts';

export const list = protectedProcedure('viewer', 'StateSync resources with per-replica status (last cycle, entities, errors, backoff).')
  .input(ListStateSyncInput)
  .query(async ({ ctx, input }) => {
    const r = await storeCall(() => ctx.store.list('StateSync', { namespace: input.namespace }));
    const items = (r.items as StateSync[]).map((s) => {
      const periodS = syncPeriodSeconds(s.spec.syncPeriod);
      return {
      namespace: s.metadata.namespace,
      name: s.metadata.name,
      target: s.spec.target,
      syncPeriod: s.spec.syncPeriod,
      syncables: s.spec.syncables,
      conditions: s.status?.conditions ?? [],
      replicas: (s.status?.replicas ?? []).map((rep) => {
        const backingOff = isBackingOff(rep, periodS);
        return { ...rep, backingOff, healthy: !rep.lastError && !backingOff };
      }),
    };
    });
    return { items, resourceVersion: r.resourceVersion };
  });
