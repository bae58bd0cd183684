import { fetchRouterStats } from '../../clients/router-stats.ts';
import { protectedProcedure } from '../../trpc.ts';
import { FunctionLiveInput } from './live.schema.ts';
import { sumRevisionStats } from './sum-revision-stats.ts';

export const live = protectedProcedure('viewer', "Live RPS and concurrency per revision of one function, summed over every router replica's last second.")
  .input(FunctionLiveInput)
  .query(async ({ ctx, input }) => {
    const replicas = await fetchRouterStats(ctx);
    return {
      revisions: sumRevisionStats(replicas, input.namespace, input.name),
      replicas: replicas.map((r) => ({ url: r.url, ok: r.ok, error: r.error ?? null })),
    };
  });
