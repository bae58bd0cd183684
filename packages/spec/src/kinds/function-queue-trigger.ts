import { z } from 'zod';
import { DNS1123_LABEL } from '../meta.ts';
import { says } from '../validate/reasons.ts';

/**
 * `spec.triggers.queue[]`: deliver a message queue's messages to the Function (docs/triggers.md).
 * Owned by the queue trigger; the shape below is the skeleton the reconciler fills in.
 */
export const QueueTriggerSchema = z.object({
  /** Unique among the Function's triggers; names the trigger in status and Events. */
  name: z.string().max(63, says('trigger_name')).regex(DNS1123_LABEL, says('trigger_name')),
  /** The subject (NATS JetStream) messages are read from. */
  subject: z.string().min(1),
});
export type QueueTrigger = z.infer<typeof QueueTriggerSchema>;

/** `status.triggers.queue[]`: delivery counters of one queue trigger. */
export const QueueTriggerStatusSchema = z.object({
  name: z.string(),
});
export type QueueTriggerStatus = z.infer<typeof QueueTriggerStatusSchema>;
