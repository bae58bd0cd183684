import { fetchRouterStats } from '../../clients/router-stats.ts';
import { replicasHealth } from '../../health/health-from-conditions.ts';
import { protectedProcedure } from '../../trpc.ts';
import { LiveStickyInput } from './live.schema.ts';
import { sumReplicas } from './sum-replicas.ts';

export const live = protectedProcedure('viewer', 'Live sticky counters per function summed over every router replica (plus which replicas answered, with their health).')
  .input(LiveStickyInput)
  .query(async ({ ctx, input }) => {
    const replicas = await fetchRouterStats(ctx);
    return {
      functions: sumReplicas(replicas, input),
      replicas: replicas.map((r) => ({ url: r.url, ok: r.ok, error: r.error ?? null, health: replicasHealth([r]).health })),
    };
  });
