import { z } from 'zod';
import { NameSchema, NamespaceSchema } from '../object-ref.schema.ts';

export const StickyHistoryInput = z.object({
  namespace: NamespaceSchema,
  function: NameSchema,
  /** How far back, in minutes (default the last hour, at most a week). */
  minutes: z.number().int().min(1).max(7 * 24 * 60).default(60),
});
