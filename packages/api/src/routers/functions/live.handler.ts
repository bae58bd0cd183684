import { fetchRouterStats } from '../../clients/router-stats.ts';
import { storeCall } from '../../errors.ts';
import { protectedProcedure } from '../../trpc.ts';
import { functionHealth } from '../../health/health-from-conditions.ts';
import { sumReplicas } from '../sticky/sum-replicas.ts';
import { FunctionLiveInput } from './live.schema.ts';
import { sumRevisionStats } from './sum-revision-stats.ts';

/**
 * Everything the function page refreshes every few seconds in one call: one read of the stored
 * function (its health) and one round of router stats (per-revision load and sticky totals), so the
 * page never polls the whole-platform overview or asks the routers twice.
 */
export const live = protectedProcedure('viewer', "One function's health, live RPS and concurrency per revision, and sticky counters, summed over every router replica.")
  .input(FunctionLiveInput)
  .query(async ({ ctx, input }) => {
    const [fn, replicas] = await Promise.all([storeCall(() => ctx.store.get('Function', input.namespace, input.name)), fetchRouterStats(ctx)]);
    return {
      health: fn ? functionHealth(fn) : null,
      revisions: sumRevisionStats(replicas, input.namespace, input.name),
      sticky: sumReplicas(replicas, { namespace: input.namespace, function: input.name })[0] ?? null,
      replicas: replicas.map((r) => ({ url: r.url, ok: r.ok, error: r.error ?? null })),
    };
  });
