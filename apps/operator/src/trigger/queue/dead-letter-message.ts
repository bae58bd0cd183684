/**
 * The message a queue trigger publishes to its deadLetterSubject for a message that failed
 * maxDeliver times: the same data, the original headers (but NATS' own control headers, which
 * would make the broker refuse or deduplicate it), and Orrery-Dead-Letter-* headers saying where
 * it came from and why. Its Nats-Msg-Id is derived from the original's stream and sequence, so
 * publishing it again (a retry, a failover) within the stream's duplicate window stores it once.
 */
import { deliveryId, type DeliveredMessage } from './queue-invocation.ts';
import type { QueueTriggerSettings } from './queue-trigger-settings.ts';

export const DEAD_LETTER_HEADERS = {
  reason: 'Orrery-Dead-Letter-Reason',
  stream: 'Orrery-Dead-Letter-Stream',
  subject: 'Orrery-Dead-Letter-Subject',
  sequence: 'Orrery-Dead-Letter-Sequence',
  deliveries: 'Orrery-Dead-Letter-Deliveries',
  fn: 'Orrery-Dead-Letter-Function',
  trigger: 'Orrery-Dead-Letter-Trigger',
  time: 'Orrery-Dead-Letter-Time',
} as const;

/** Headers that steer the broker (deduplication, expectations, rollups): never copied. */
const CONTROL = /^nats-/i;

export interface DeadLetter {
  /** Header name → value, in the order they are set. */
  headers: Array<[string, string]>;
  /** The Nats-Msg-Id it is published with. */
  msgId: string;
}

/** A header value on one line (node and NATS both refuse CR/LF), bounded. */
const oneLine = (s: string, max = 512) => s.replace(/[\r\n]+/g, ' ').slice(0, max);

export function deadLetterMessage(
  m: Pick<DeliveredMessage, 'stream' | 'streamSequence' | 'subject' | 'deliveryCount'>,
  original: ReadonlyArray<[string, string]>,
  s: Pick<QueueTriggerSettings, 'namespace' | 'function' | 'name'>,
  reason: string,
  now: Date,
): DeadLetter {
  const ours = new Set(Object.values(DEAD_LETTER_HEADERS).map((h) => h.toLowerCase()));
  const headers: Array<[string, string]> = original.filter(([name]) => !CONTROL.test(name) && !ours.has(name.toLowerCase()));
  headers.push(
    [DEAD_LETTER_HEADERS.reason, oneLine(reason)],
    [DEAD_LETTER_HEADERS.stream, m.stream],
    [DEAD_LETTER_HEADERS.subject, oneLine(m.subject, 255)],
    [DEAD_LETTER_HEADERS.sequence, String(m.streamSequence)],
    [DEAD_LETTER_HEADERS.deliveries, String(m.deliveryCount)],
    [DEAD_LETTER_HEADERS.fn, `${s.namespace}/${s.function}`],
    [DEAD_LETTER_HEADERS.trigger, s.name],
    [DEAD_LETTER_HEADERS.time, now.toISOString()],
  );
  return { headers, msgId: `orrery-dead-letter:${deliveryId(m)}` };
}
