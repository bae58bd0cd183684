import { and, asc, eq, gte } from 'drizzle-orm';
import { keyspaceRollups } from '@orrery/db';
import { protectedProcedure } from '../../trpc.ts';
import { KeyspaceHistoryInput } from './history.schema.ts';

export const history = protectedProcedure('viewer', "Per-minute keys and bytes of one keyspace (rollups sampled from statesvc).")
  .input(KeyspaceHistoryInput)
  .query(async ({ ctx, input }) => {
    const since = new Date((ctx.now?.() ?? new Date()).getTime() - input.minutes * 60_000);
    const rows = await ctx.db.db
      .select()
      .from(keyspaceRollups)
      .where(and(eq(keyspaceRollups.namespace, input.namespace), eq(keyspaceRollups.keyspace, input.keyspace), gte(keyspaceRollups.minute, since)))
      .orderBy(asc(keyspaceRollups.minute));
    return { points: rows.map((r) => ({ minute: r.minute.toISOString(), keys: r.keys, bytes: r.bytes })) };
  });
