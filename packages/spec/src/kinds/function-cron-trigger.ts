import { z } from 'zod';
import { DNS1123_LABEL } from '../meta.ts';
import { says } from '../validate/reasons.ts';
import {
  CRON_BODY_METHOD,
  CRON_HEADER_NOT_RESERVED,
  CRON_HEADERS_UNIQUE,
  CRON_SCHEDULE_SHAPE,
  CRON_TRIGGER_NAMES_UNIQUE,
  MAX_CRON_SCHEDULE_LENGTH,
  MAX_TIME_ZONE_LENGTH,
  TIME_ZONE_PATTERN,
} from '../validate/rules/cron-rules.ts';
import { duplicates } from '../validate/rules/duplicates.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import { cronScheduleProblem, knownTimeZone } from './cron-schedule.ts';

export * from './cron-schedule.ts';

/** HTTP methods a cron trigger may call the Function with. */
export const CRON_TRIGGER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** Kubernetes CronJob's policies, less Replace (a call in flight cannot be taken back from a Function). */
export const CRON_CONCURRENCY_POLICIES = ['Allow', 'Forbid'] as const;
export type CronConcurrencyPolicy = (typeof CRON_CONCURRENCY_POLICIES)[number];
/** Runs kept in status.triggers.cron[].runs, newest last. */
export const CRON_HISTORY_LIMIT = 10;
export const MAX_CRON_BODY = 4096;
export const MAX_CRON_HEADERS = 16;
/** A URL path with an optional query: what follows the Function's own URL. No fragment, no whitespace. */
export const CRON_PATH_PATTERN = /^\/[^\s#]*$/;
/** An RFC 9110 field name (token); the backtick written \x60 so the pattern quotes cleanly in docs. */
export const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_\x60|~0-9A-Za-z-]+$/;
/** A field value node sends as is: no CR, LF or NUL. */
export const HEADER_VALUE_PATTERN = /^[^\r\n\0]*$/;

/** The trigger's fields a Function may leave out, and what they mean then. */
export const CRON_TRIGGER_DEFAULTS = { method: 'POST', path: '/', concurrencyPolicy: 'Allow', suspend: false } as const;

const CronHeaderSchema = withCel(
  z
    .object({
      name: z.string().max(64, says('cron_header_name')).regex(HEADER_NAME_PATTERN, says('cron_header_name')),
      value: z.string().max(1024, says('cron_header_value')).regex(HEADER_VALUE_PATTERN, says('cron_header_value')),
    })
    .refine(CRON_HEADER_NOT_RESERVED.holds, { message: says('cron_header_reserved'), path: ['name'] }),
  [CRON_HEADER_NOT_RESERVED],
);

/**
 * `spec.triggers.cron[]`: invoke the Function on a schedule (docs/triggers.md "Cron"), as
 * Kubernetes CronJobs run Jobs: a tick runs at most once across operator replicas, a missed tick
 * is caught up once within `startingDeadlineSeconds`, and the last runs are kept in status.
 */
export const CronTriggerSchema = withCel(
  z.object({
    /** Unique among the Function's triggers; names the trigger in status and Events. */
    name: z.string().max(63, says('trigger_name')).regex(DNS1123_LABEL, says('trigger_name')),
    /** Five-field cron expression, a nickname such as @hourly, or six fields with explicit seconds first. */
    schedule: withCel(
      z
        .string()
        .max(MAX_CRON_SCHEDULE_LENGTH, says('cron_schedule'))
        .refine(CRON_SCHEDULE_SHAPE.holds, { message: says('cron_schedule') })
        .superRefine((schedule, ctx) => {
          if (!CRON_SCHEDULE_SHAPE.holds(schedule)) return; // reported above
          const problem = cronScheduleProblem(schedule);
          if (problem) ctx.addIssue({ code: 'custom', message: says('cron_schedule', `${problemPrefix(problem)}; ${REASON_TAIL}`) });
        }),
      [CRON_SCHEDULE_SHAPE],
    ),
    /** IANA time zone the schedule is read in; absent = UTC. */
    timeZone: z
      .string()
      .max(MAX_TIME_ZONE_LENGTH, says('cron_time_zone'))
      .regex(TIME_ZONE_PATTERN, says('cron_time_zone'))
      .refine((tz) => !TIME_ZONE_PATTERN.test(tz) || knownTimeZone(tz), { message: says('cron_time_zone') })
      .optional(),
    method: z.enum(CRON_TRIGGER_METHODS).default(CRON_TRIGGER_DEFAULTS.method),
    /** Path (and query) below the Function's URL. */
    path: z.string().max(1024, says('cron_path')).regex(CRON_PATH_PATTERN, says('cron_path')).default(CRON_TRIGGER_DEFAULTS.path),
    /** Request body sent with each call. */
    body: z.string().max(MAX_CRON_BODY, says('cron_body')).optional(),
    /** Extra request headers. */
    headers: withCel(
      z.array(CronHeaderSchema).max(MAX_CRON_HEADERS, says('cron_headers')).refine(CRON_HEADERS_UNIQUE.holds, { message: says('cron_header_duplicate') }),
      [CRON_HEADERS_UNIQUE],
    ).optional(),
    /** true = no new tick runs (runs in flight finish); ticks while suspended are not caught up. */
    suspend: z.boolean().default(CRON_TRIGGER_DEFAULTS.suspend),
    /** Forbid = a tick that comes while the previous call is still running is skipped. */
    concurrencyPolicy: z.enum(CRON_CONCURRENCY_POLICIES).default(CRON_TRIGGER_DEFAULTS.concurrencyPolicy),
    /** A tick found more than this late is recorded as missed, not run; absent = no limit. */
    startingDeadlineSeconds: z.number().int().min(1, says('cron_starting_deadline')).max(31_622_400, says('cron_starting_deadline')).optional(),
  }).refine(CRON_BODY_METHOD.holds, { message: says('cron_body_method'), path: ['body'] }),
  [CRON_BODY_METHOD],
);
export type CronTrigger = z.infer<typeof CronTriggerSchema>;

/** Most cron triggers one Function may have. */
export const MAX_CRON_TRIGGERS = 16;

/** `spec.triggers.cron`: the list, each name once. */
export const CronTriggerListSchema = withCel(
  z
    .array(CronTriggerSchema)
    .max(MAX_CRON_TRIGGERS)
    .superRefine((list, ctx) => {
      for (const { index } of duplicates(list.map((t) => t.name))) ctx.addIssue({ code: 'custom', message: says('trigger_name_duplicate'), path: [index, 'name'] });
    }),
  [CRON_TRIGGER_NAMES_UNIQUE],
);

const REASON_TAIL = 'write five fields (minute hour day-of-month month day-of-week), e.g. "*/15 * * * *" or "0 3 * * mon-fri", or @hourly, @daily, @weekly, @monthly, @yearly';
const problemPrefix = (problem: string) => `schedule cannot be used: ${problem}`;

/** What happened to one tick. */
export const CRON_RUN_OUTCOMES = ['Running', 'Succeeded', 'Failed', 'Skipped', 'Missed'] as const;
export type CronRunOutcome = (typeof CRON_RUN_OUTCOMES)[number];

export const CronRunSchema = z.object({
  /** The tick (RFC 3339). */
  scheduledTime: z.string(),
  outcome: z.enum(CRON_RUN_OUTCOMES),
  /** When the call was sent (absent for Skipped and Missed). */
  startTime: z.string().optional(),
  finishedTime: z.string().optional(),
  durationMs: z.number().int().min(0).optional(),
  /** The Function's (or the router's) HTTP status. */
  statusCode: z.number().int().optional(),
  /** Why it failed, was skipped or missed; one line. */
  message: z.string().max(512).optional(),
});
export type CronRun = z.infer<typeof CronRunSchema>;

/** `status.triggers.cron[]`: the record of one cron trigger, written only by the leading operator. */
export const CronTriggerStatusSchema = z.object({
  name: z.string(),
  /** The schedule, time zone and suspension this record follows; a change starts a new count at `since`. */
  schedule: z.string().optional(),
  timeZone: z.string().optional(),
  suspended: z.boolean().optional(),
  /** Ticks before this are never run: when the operator began following this schedule. */
  since: z.string().optional(),
  /** The latest tick claimed (run, skipped or missed): never run again. */
  lastScheduleTime: z.string().optional(),
  lastSuccessfulTime: z.string().optional(),
  nextScheduleTime: z.string().optional(),
  /** Ticks not run since `since` (operator down past the deadline, Forbid, caught up by a later tick). */
  missedTicks: z.number().int().min(0).optional(),
  /** Why the trigger cannot run (a schedule that slipped past admission); absent when fine. */
  problem: z.string().max(512).optional(),
  runs: z.array(CronRunSchema).max(CRON_HISTORY_LIMIT).optional(),
});
export type CronTriggerStatus = z.infer<typeof CronTriggerStatusSchema>;
