import { z } from 'zod';
import { CronTriggerListSchema, CronTriggerStatusSchema } from './function-cron-trigger.ts';
import { QueueTriggerListSchema, QueueTriggerStatusSchema } from './function-queue-trigger.ts';

export * from './function-cron-trigger.ts';
export * from './function-queue-trigger.ts';

/**
 * What invokes a Function besides HTTP. On the Function rather than as separate kinds: a
 * trigger lives and dies with its Function, shows on its page and status, and needs no RBAC or
 * GitOps object of its own (docs/triggers.md says why in full).
 */
export const TriggersSchema = z.object({
  cron: CronTriggerListSchema.default([]),
  queue: QueueTriggerListSchema.default([]),
});
export type Triggers = z.infer<typeof TriggersSchema>;

export const TriggersStatusSchema = z.object({
  cron: z.array(CronTriggerStatusSchema).optional(),
  queue: z.array(QueueTriggerStatusSchema).optional(),
});
export type TriggersStatus = z.infer<typeof TriggersStatusSchema>;
