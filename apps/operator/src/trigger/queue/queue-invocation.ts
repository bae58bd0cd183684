/**
 * One delivered message as the HTTP request the Function gets (trigger-invoker.ts): the body is
 * the message's data, unchanged. A publisher chooses only the body, the subject and its own
 * headers, and of those headers only Content-Type (when it is a media type) and Nats-Msg-Id (when
 * it is printable ASCII) are passed on: a message can never set Host, Authorization, Orrery-Tag or
 * any other header the router or the Function might trust. The Orrery-* headers say where the
 * message came from; Orrery-Delivery-Id is the same on every delivery of a message, so a Function
 * can pass it as Idempotency-Key to the state API and do its work once (docs/triggers.md).
 */
import { MEDIA_TYPE_PATTERN } from '@orrery/spec';
import type { TriggerInvocation } from '../trigger-invoker.ts';
import type { QueueTriggerSettings } from './queue-trigger-settings.ts';

/** A delivered JetStream message, as much of it as the invocation reads. */
export interface DeliveredMessage {
  subject: string;
  data: Uint8Array;
  /** A header of the message (case-insensitive), if it has it. */
  header(name: string): string | undefined;
  stream: string;
  /** The message's sequence in its stream: what identifies it across redeliveries. */
  streamSequence: number;
  /** 1 on the first delivery. */
  deliveryCount: number;
}

export const DELIVERY_ID_HEADER = 'Orrery-Delivery-Id';
export const DELIVERY_ATTEMPT_HEADER = 'Orrery-Delivery-Attempt';
export const QUEUE_SUBJECT_HEADER = 'Orrery-Queue-Subject';
export const QUEUE_STREAM_HEADER = 'Orrery-Queue-Stream';
export const NATS_MSG_ID_HEADER = 'Nats-Msg-Id';

/** Printable ASCII without spaces, bounded: a value node sends as it is and a log line can hold. */
const SAFE_VALUE = /^[\x21-\x7e]{1,256}$/;

/** `<stream>:<sequence>`: unique per message of a stream, the same on each of its deliveries. */
export function deliveryId(m: Pick<DeliveredMessage, 'stream' | 'streamSequence'>): string {
  return `${m.stream}:${m.streamSequence}`;
}

export function queueInvocation(m: DeliveredMessage, s: QueueTriggerSettings, signal?: AbortSignal): TriggerInvocation {
  const given = m.header('Content-Type')?.trim();
  const contentType = given && given.length <= 255 && MEDIA_TYPE_PATTERN.test(given) ? given : s.contentType;
  const headers: Record<string, string> = {
    'content-type': contentType,
    [DELIVERY_ID_HEADER]: deliveryId(m),
    [DELIVERY_ATTEMPT_HEADER]: String(m.deliveryCount),
    [QUEUE_STREAM_HEADER]: m.stream,
  };
  if (SAFE_VALUE.test(m.subject)) headers[QUEUE_SUBJECT_HEADER] = m.subject;
  const msgId = m.header(NATS_MSG_ID_HEADER);
  if (msgId !== undefined && SAFE_VALUE.test(msgId)) headers[NATS_MSG_ID_HEADER] = msgId;
  return {
    namespace: s.namespace,
    function: s.function,
    trigger: `queue/${s.name}`,
    method: s.method,
    path: s.path,
    headers,
    body: m.data,
    timeoutMs: s.invokeTimeoutMs,
    ...(signal ? { signal } : {}),
  };
}
