import { z } from 'zod';
import { DNS1123_LABEL } from '../meta.ts';
import { says } from '../validate/reasons.ts';
import { duplicates } from '../validate/rules/duplicates.ts';
import { boundedDuration } from '../validate/rules/duration-rules.ts';
import { withCel } from '../validate/rules/object-rule.ts';
import {
  MAX_QUEUE_STREAM,
  MAX_QUEUE_SUBJECT,
  QUEUE_DEAD_LETTER_LOOP,
  QUEUE_LITERAL_SUBJECT_PATTERN,
  QUEUE_STREAM_PATTERN,
  QUEUE_SUBJECT_PATTERN,
  QUEUE_TRIGGER_NAMES_UNIQUE,
} from '../validate/rules/queue-trigger-rules.ts';

export { subjectMatches } from '../validate/rules/queue-trigger-rules.ts';

const HOUR_MS = 3_600_000;
/** Most backoff steps a trigger may list (the last one repeats). */
export const MAX_QUEUE_BACKOFF_STEPS = 16;
/** Defaults a trigger gets for what it leaves out (the CRD fills them in; the operator reads them parsed). */
export const QUEUE_TRIGGER_DEFAULTS = {
  maxInFlight: 1,
  maxDeliver: 5,
  ackWait: '30s',
  backoff: ['1s', '10s', '1m'],
  method: 'POST',
  path: '/',
} as const;
/** HTTP methods a queue trigger may invoke with: a message is a request body. */
export const QUEUE_TRIGGER_METHODS = ['POST', 'PUT'] as const;
/** An RFC 9110 media type with optional parameters, e.g. `application/json; charset=utf-8`. */
const MEDIA_TOKEN = "[A-Za-z0-9!#$&^_.+-]+";
export const MEDIA_TYPE_PATTERN = new RegExp(`^${MEDIA_TOKEN}/${MEDIA_TOKEN}(?: *; *${MEDIA_TOKEN}=(?:${MEDIA_TOKEN}|"[^"\\\\\\r\\n]*"))*$`);
/** A URL path of plain segments (no query, no "." or ".." segment): appended to the Function's URL. */
export const TRIGGER_PATH_PATTERN = /^\/(?:[A-Za-z0-9_~-][A-Za-z0-9._~-]*(?:\/[A-Za-z0-9_~-][A-Za-z0-9._~-]*)*\/?)?$/;

/**
 * `spec.triggers.queue[]`: deliver the messages of a NATS JetStream subject to the Function, at
 * least once (docs/triggers.md "Queue"). The operator holds one durable pull consumer per trigger,
 * acks a message only after a 2xx from the Function, naks a failure with the backoff's delay and,
 * after `maxDeliver` deliveries, publishes it to `deadLetterSubject` and terminates it.
 */
export const QueueTriggerSchema = withCel(
  z.object({
    /** Unique among the Function's triggers; names the trigger in status and Events. */
    name: z.string().max(63, says('trigger_name')).regex(DNS1123_LABEL, says('trigger_name')),
    /** The JetStream stream; created (work-queue retention) when it does not exist, else used as it is. */
    stream: z.string().max(MAX_QUEUE_STREAM, says('queue_stream')).regex(QUEUE_STREAM_PATTERN, says('queue_stream')),
    /** The subject filter messages are read from (`orders.*`, `events.>`). */
    subject: z.string().max(MAX_QUEUE_SUBJECT, says('queue_subject')).regex(QUEUE_SUBJECT_PATTERN, says('queue_subject')),
    /** Messages of this trigger in flight at once (the consumer's max ack pending). */
    maxInFlight: z.number().int().min(1, says('queue_max_in_flight')).max(1000, says('queue_max_in_flight')).default(QUEUE_TRIGGER_DEFAULTS.maxInFlight),
    /** Deliveries of one message before it is dead-lettered (the first one included). */
    maxDeliver: z.number().int().min(1, says('queue_max_deliver')).max(100, says('queue_max_deliver')).default(QUEUE_TRIGGER_DEFAULTS.maxDeliver),
    /** How long the broker waits for an outcome before delivering again (the operator extends it while the Function runs). */
    ackWait: boundedDuration({ reason: 'queue_ack_wait', minMs: 1000, maxMs: HOUR_MS }).default(QUEUE_TRIGGER_DEFAULTS.ackWait),
    /** Delay before the next delivery after the 1st, 2nd, … failure; the last step repeats. */
    backoff: z
      .array(boundedDuration({ reason: 'queue_backoff', minMs: 0, maxMs: HOUR_MS }))
      .min(1, says('queue_backoff'))
      .max(MAX_QUEUE_BACKOFF_STEPS, says('queue_backoff'))
      .default([...QUEUE_TRIGGER_DEFAULTS.backoff]),
    /** Where a message that failed maxDeliver times is published (with Orrery-Dead-Letter-* headers); absent = dropped. */
    deadLetterSubject: z
      .string()
      .max(MAX_QUEUE_SUBJECT, says('queue_dead_letter_subject'))
      .regex(QUEUE_LITERAL_SUBJECT_PATTERN, says('queue_dead_letter_subject'))
      .optional(),
    /** Content-Type of the invocation when the message carries none; absent = application/octet-stream. */
    contentType: z.string().max(255, says('queue_content_type')).regex(MEDIA_TYPE_PATTERN, says('queue_content_type')).optional(),
    /** Path under the Function's URL the message is sent to. */
    path: z.string().max(1024, says('queue_path')).regex(TRIGGER_PATH_PATTERN, says('queue_path')).default(QUEUE_TRIGGER_DEFAULTS.path),
    method: z.enum(QUEUE_TRIGGER_METHODS, { error: says('queue_method') }).default(QUEUE_TRIGGER_DEFAULTS.method),
  })
    // In the schema rather than validate(): the operator parses only the schema.
    .refine(QUEUE_DEAD_LETTER_LOOP.holds, { message: says('queue_dead_letter_loop'), path: ['deadLetterSubject'] }),
  [QUEUE_DEAD_LETTER_LOOP],
);
export type QueueTrigger = z.infer<typeof QueueTriggerSchema>;

/** Most queue triggers one Function may have. */
export const MAX_QUEUE_TRIGGERS = 16;

/** `spec.triggers.queue`: the list, each name once (reported at the repeated name). */
export const QueueTriggerListSchema = withCel(
  z
    .array(QueueTriggerSchema)
    .max(MAX_QUEUE_TRIGGERS)
    .superRefine((list, ctx) => {
      for (const { index } of duplicates(list.map((t) => t.name))) ctx.addIssue({ code: 'custom', message: says('trigger_name_duplicate'), path: [index, 'name'] });
    }),
  [QUEUE_TRIGGER_NAMES_UNIQUE],
);

/** Why a queue trigger does or does not consume (stable codes, docs/triggers.md). */
export const QUEUE_TRIGGER_STATES = ['Consuming', 'Starting', 'NoBroker', 'BrokerUnavailable', 'ConsumerFailed'] as const;
export type QueueTriggerState = (typeof QUEUE_TRIGGER_STATES)[number];

/**
 * `status.triggers.queue[]`: what one queue trigger did. Counters count since the trigger's
 * consumer was created and survive operator restarts (each term resumes from the last status);
 * a message delivered again after an operator crash may be counted twice.
 */
export const QueueTriggerStatusSchema = z.object({
  name: z.string(),
  /** The JetStream stream and durable consumer the trigger reads. */
  stream: z.string().optional(),
  consumer: z.string().optional(),
  /** True while the operator consumes; reason and message say why not. */
  ready: z.boolean().optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
  /** Messages waiting for this trigger: not yet delivered plus delivered and not yet acked. */
  pending: z.number().int().nonnegative().optional(),
  delivered: z.number().int().nonnegative().optional(),
  acked: z.number().int().nonnegative().optional(),
  redelivered: z.number().int().nonnegative().optional(),
  deadLettered: z.number().int().nonnegative().optional(),
  lastError: z.string().optional(),
  lastErrorTime: z.string().optional(),
  lastDeliveryTime: z.string().optional(),
});
export type QueueTriggerStatus = z.infer<typeof QueueTriggerStatusSchema>;
