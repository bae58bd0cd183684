import { and, asc, eq, gte } from 'drizzle-orm';
import { functionRollups } from '@orrery/db';
import { protectedProcedure } from '../../trpc.ts';
import { StickyHistoryInput } from './history.schema.ts';

export const history = protectedProcedure('viewer', "Per-minute rollups of a function's requests, sticky requests, missing keys and teleports.")
  .input(StickyHistoryInput)
  .query(async ({ ctx, input }) => {
    const since = new Date((ctx.now?.() ?? new Date()).getTime() - input.minutes * 60_000);
    const rows = await ctx.db.db
      .select()
      .from(functionRollups)
      .where(and(eq(functionRollups.namespace, input.namespace), eq(functionRollups.function, input.function), gte(functionRollups.minute, since)))
      .orderBy(asc(functionRollups.minute));
    return {
      points: rows.map((r) => ({ minute: r.minute.toISOString(), requests: r.requests, stickyRequests: r.stickyRequests, missingKeys: r.missingKeys, teleports: r.teleports })),
    };
  });
