/**
 * A Function's `spec.triggers.queue[]` as the dispatcher runs them: durations in milliseconds,
 * defaults applied, the durable consumer's name and the JetStream consumer configuration it wants.
 * Pure: the plan (queue-trigger-plan.ts) compares these to decide what to (re)start or stop.
 */
import { type OrreryFunction, type QueueTrigger, parseDurationMs, QUEUE_TRIGGER_DEFAULTS } from '@orrery/spec';

export interface QueueTriggerSettings {
  /** `<namespace>/<function>/<trigger>`: names the trigger in the dispatcher's tables. */
  key: string;
  namespace: string;
  function: string;
  name: string;
  stream: string;
  subject: string;
  /** The durable consumer on the broker (queueConsumerName). */
  consumer: string;
  maxInFlight: number;
  maxDeliver: number;
  ackWaitMs: number;
  /** Delay after the 1st, 2nd, … failure; the last repeats. Never empty. */
  backoffMs: number[];
  deadLetterSubject: string | undefined;
  /** Content-Type when the message carries none. */
  contentType: string;
  method: string;
  path: string;
  /** How long one invocation may take: the Function's timeoutSeconds plus a margin for the router's own 504. */
  invokeTimeoutMs: number;
}

/** What the invocation says when neither the message nor the trigger names a Content-Type. */
export const DEFAULT_QUEUE_CONTENT_TYPE = 'application/octet-stream';
/** Added to the Function's timeoutSeconds: the router answers 504 first, so the dispatcher sees why. */
const INVOKE_MARGIN_MS = 5000;

export function queueTriggerKey(namespace: string, fn: string, trigger: string): string {
  return `${namespace}/${fn}/${trigger}`;
}

/**
 * `orrery_<namespace>_<function>_<trigger>`: "_" cannot occur in a DNS-1123 name, so no two
 * triggers share a consumer (with "-", namespace `a-b` function `c` would meet namespace `a`
 * function `b-c`). JetStream allows "_" in consumer names; at most 4 + 63 + 57 + 63 + 3 characters.
 */
export function queueConsumerName(namespace: string, fn: string, trigger: string): string {
  return `orrery_${namespace}_${fn}_${trigger}`;
}

export function queueTriggerSettings(fn: Pick<OrreryFunction, 'metadata' | 'spec'>, t: QueueTrigger): QueueTriggerSettings {
  const { namespace, name } = fn.metadata;
  const backoff = t.backoff?.length ? t.backoff : QUEUE_TRIGGER_DEFAULTS.backoff;
  return {
    key: queueTriggerKey(namespace, name, t.name),
    namespace,
    function: name,
    name: t.name,
    stream: t.stream,
    subject: t.subject,
    consumer: queueConsumerName(namespace, name, t.name),
    maxInFlight: t.maxInFlight ?? QUEUE_TRIGGER_DEFAULTS.maxInFlight,
    maxDeliver: t.maxDeliver ?? QUEUE_TRIGGER_DEFAULTS.maxDeliver,
    ackWaitMs: parseDurationMs(t.ackWait ?? QUEUE_TRIGGER_DEFAULTS.ackWait),
    backoffMs: backoff.map(parseDurationMs),
    deadLetterSubject: t.deadLetterSubject,
    contentType: t.contentType ?? DEFAULT_QUEUE_CONTENT_TYPE,
    method: t.method ?? QUEUE_TRIGGER_DEFAULTS.method,
    path: t.path ?? QUEUE_TRIGGER_DEFAULTS.path,
    invokeTimeoutMs: (fn.spec.template.timeoutSeconds ?? 300) * 1000 + INVOKE_MARGIN_MS,
  };
}

/** Every queue trigger of a Function (none while it is being deleted). */
export function queueTriggersOf(fn: Pick<OrreryFunction, 'metadata' | 'spec'>): QueueTriggerSettings[] {
  if (fn.metadata.deletionTimestamp) return [];
  return (fn.spec.triggers?.queue ?? []).map((t) => queueTriggerSettings(fn, t));
}

/** The JetStream consumer a trigger holds (nats.js ConsumerConfig fields, durations in nanoseconds). */
export interface QueueConsumerConfig {
  durable_name: string;
  filter_subject: string;
  ack_policy: 'explicit';
  deliver_policy: 'all';
  /**
   * Unlimited on the broker: the dispatcher counts deliveries itself and dead-letters at
   * maxDeliver. With the broker's limit a message whose last delivery was cut short (operator
   * crash, failover) would be stranded, neither retried nor dead-lettered.
   */
  max_deliver: -1;
  ack_wait: number;
  /** The broker never hands out more than this unacked: maxInFlight holds even across a failover. */
  max_ack_pending: number;
  description: string;
}

export function queueConsumerConfig(s: QueueTriggerSettings): QueueConsumerConfig {
  return {
    durable_name: s.consumer,
    filter_subject: s.subject,
    ack_policy: 'explicit',
    deliver_policy: 'all',
    max_deliver: -1,
    ack_wait: s.ackWaitMs * 1_000_000,
    max_ack_pending: s.maxInFlight,
    description: `Orrery queue trigger ${s.name} of Function ${s.namespace}/${s.function}`,
  };
}
