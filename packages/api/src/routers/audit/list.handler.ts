import { and, desc, eq, gte, like, lt, lte, type SQL } from 'drizzle-orm';
import { auditLog } from '@orrery/db';
import { protectedProcedure } from '../../trpc.ts';
import { ListAuditInput } from './list.schema.ts';

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const list = protectedProcedure('viewer', 'Audit rows, newest first, filtered by who/action/target/result/time; paged by cursor.')
  .input(ListAuditInput)
  .query(async ({ ctx, input }) => {
    const where: SQL[] = [];
    if (input.who) where.push(eq(auditLog.who, input.who));
    if (input.action) where.push(input.action.endsWith('.') ? like(auditLog.action, `${escapeLike(input.action)}%`) : eq(auditLog.action, input.action));
    if (input.target) where.push(like(auditLog.target, `%${escapeLike(input.target)}%`));
    if (input.result) where.push(eq(auditLog.result, input.result));
    if (input.from) where.push(gte(auditLog.at, new Date(input.from)));
    if (input.to) where.push(lte(auditLog.at, new Date(input.to)));
    if (input.cursor) where.push(lt(auditLog.id, input.cursor));
    const rows = await ctx.db.db
      .select()
      .from(auditLog)
      .where(where.length ? and(...where) : undefined)
      .orderBy(desc(auditLog.id))
      .limit(input.limit + 1);
    const more = rows.length > input.limit;
    const items = rows.slice(0, input.limit).map((r) => ({ ...r, at: r.at.toISOString() }));
    return { items, nextCursor: more ? items[items.length - 1]!.id : null };
  });
