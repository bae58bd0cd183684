import { z } from 'zod';
import { NamespaceSchema } from '../object-ref.schema.ts';

/** The overview of the whole platform, or of one namespace's objects (components stay platform-wide). */
export const OverviewSummaryInput = z
  .object({
    namespace: NamespaceSchema.optional(),
    /** How many of the newest audit rows to include. */
    auditLimit: z.number().int().min(0).max(50).default(10),
  })
  .default({ auditLimit: 10 });
