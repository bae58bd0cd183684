import { z } from 'zod';
import { DNS1123_LABEL } from '../meta.ts';
import { says } from '../validate/reasons.ts';

/**
 * `spec.triggers.cron[]`: invoke the Function on a schedule (docs/triggers.md). Owned by the cron
 * trigger; the shape below is the skeleton the reconciler fills in.
 */
export const CronTriggerSchema = z.object({
  /** Unique among the Function's triggers; names the trigger in status and Events. */
  name: z.string().max(63, says('trigger_name')).regex(DNS1123_LABEL, says('trigger_name')),
  /** Five-field cron expression (minute hour day-of-month month day-of-week). */
  schedule: z.string().min(1),
  /** IANA time zone the schedule is read in; absent = UTC. */
  timeZone: z.string().optional(),
});
export type CronTrigger = z.infer<typeof CronTriggerSchema>;

/** `status.triggers.cron[]`: the last ticks of one cron trigger. */
export const CronTriggerStatusSchema = z.object({
  name: z.string(),
});
export type CronTriggerStatus = z.infer<typeof CronTriggerStatusSchema>;
