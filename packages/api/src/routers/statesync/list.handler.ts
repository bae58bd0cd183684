import type { StateSync } from '@orrery/spec';
import { stateSyncHealth, worstHealth, type HealthVerdict } from '../../health/health-from-conditions.ts';
import { isBackingOff, replicaHealth, syncPeriodSeconds } from '../../health/statesync-replica-health.ts';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { ListStateSyncInput } from './list.schema.ts';

export const list = protectedProcedure(
  'viewer',
  'StateSync resources with their health and per-replica status (last cycle, entities, errors, backoff, the row\'s health and its replica\'s worst).',
)
  .input(ListStateSyncInput)
  .query(async ({ ctx, input }) => {
    const r = await storeCall(() => ctx.store.list('StateSync', { namespace: input.namespace }));
    const items = (r.items as StateSync[]).map((s) => {
      const periodS = syncPeriodSeconds(s.spec.syncPeriod);
      const rows = (s.status?.replicas ?? []).map((rep) => ({ rep, backingOff: isBackingOff(rep, periodS), health: replicaHealth(rep, periodS) }));
      // A replica reports one row per syncable: one failing syncable makes the replica as bad.
      const byReplica = new Map<string, HealthVerdict[]>();
      for (const row of rows) byReplica.set(row.rep.replica, [...(byReplica.get(row.rep.replica) ?? []), row.health]);
      return {
        namespace: s.metadata.namespace,
        name: s.metadata.name,
        ...stateSyncHealth(s),
        target: s.spec.target,
        syncPeriod: s.spec.syncPeriod,
        syncables: s.spec.syncables,
        conditions: s.status?.conditions ?? [],
        replicas: rows.map(({ rep, backingOff, health }) => ({
          ...rep,
          backingOff,
          healthy: !rep.lastError && !backingOff,
          health,
          replicaHealth: worstHealth(byReplica.get(rep.replica)!),
        })),
      };
    });
    return { items, resourceVersion: r.resourceVersion };
  });
