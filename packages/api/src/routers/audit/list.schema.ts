import { z } from 'zod';

export const ListAuditInput = z
  .object({
    who: z.string().max(200).optional(),
    /** Exact action (`functions.traffic.set`) or a prefix ending in `.` (`registry.`). */
    action: z.string().max(200).optional(),
    /** Substring of the target (`default/counter`). */
    target: z.string().max(300).optional(),
    result: z.enum(['ok', 'error']).optional(),
    from: z.iso.datetime({ offset: true }).optional(),
    to: z.iso.datetime({ offset: true }).optional(),
    /** `nextCursor` of the previous page (rows are newest first). */
    cursor: z.number().int().positive().optional(),
    limit: z.number().int().min(1).max(500).default(50),
  })
  .default({ limit: 50 });
