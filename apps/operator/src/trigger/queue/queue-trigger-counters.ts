/**
 * What a queue trigger reports in `status.triggers.queue[]`: its delivery counters (a pure
 * reducer over what happened to each message), whether it consumes and why not, and the queue
 * depth. Counters continue from the last status written for the same consumer, so they survive
 * an operator restart or failover; a message delivered again after a crash counts again.
 */
import type { QueueTriggerState, QueueTriggerStatus } from '@orrery/spec';
import type { QueueTriggerSettings } from './queue-trigger-settings.ts';

export interface QueueCounters {
  delivered: number;
  acked: number;
  redelivered: number;
  deadLettered: number;
  lastError?: string;
  lastErrorTime?: string;
  lastDeliveryTime?: string;
}

export type QueueEvent =
  | { type: 'delivered'; deliveryCount: number; at: Date }
  | { type: 'acked' }
  | { type: 'failed'; error: string; at: Date }
  | { type: 'dead-lettered'; error: string; at: Date }
  /** The broker or the consumer failed (not one message). */
  | { type: 'broker-error'; error: string; at: Date };

export const NO_COUNTS: QueueCounters = { delivered: 0, acked: 0, redelivered: 0, deadLettered: 0 };

export function countQueueEvent(c: QueueCounters, e: QueueEvent): QueueCounters {
  switch (e.type) {
    case 'delivered':
      return { ...c, delivered: c.delivered + 1, redelivered: c.redelivered + (e.deliveryCount > 1 ? 1 : 0), lastDeliveryTime: e.at.toISOString() };
    case 'acked':
      return { ...c, acked: c.acked + 1 };
    case 'dead-lettered':
      return { ...c, deadLettered: c.deadLettered + 1, lastError: e.error, lastErrorTime: e.at.toISOString() };
    case 'failed':
    case 'broker-error':
      return { ...c, lastError: e.error, lastErrorTime: e.at.toISOString() };
  }
}

/** The counters of the last status written for this consumer (another consumer's are not ours: it was recreated). */
export function seedCounters(previous: QueueTriggerStatus | undefined, consumer: string): QueueCounters {
  if (!previous || previous.consumer !== consumer) return NO_COUNTS;
  const n = (v: number | undefined) => (Number.isInteger(v) && v! >= 0 ? v! : 0);
  return {
    delivered: n(previous.delivered),
    acked: n(previous.acked),
    redelivered: n(previous.redelivered),
    deadLettered: n(previous.deadLettered),
    ...(previous.lastError !== undefined ? { lastError: previous.lastError } : {}),
    ...(previous.lastErrorTime !== undefined ? { lastErrorTime: previous.lastErrorTime } : {}),
    ...(previous.lastDeliveryTime !== undefined ? { lastDeliveryTime: previous.lastDeliveryTime } : {}),
  };
}

/** Whether a trigger consumes now, and if not why (a stable reason) and what to do. */
export interface QueueTriggerCondition {
  ready: boolean;
  reason: QueueTriggerState;
  message: string;
}

export function queueTriggerStatus(s: QueueTriggerSettings, counters: QueueCounters, condition: QueueTriggerCondition, pending: number | undefined): QueueTriggerStatus {
  return {
    name: s.name,
    stream: s.stream,
    consumer: s.consumer,
    ready: condition.ready,
    reason: condition.reason,
    message: condition.message,
    ...(pending !== undefined ? { pending } : {}),
    delivered: counters.delivered,
    acked: counters.acked,
    redelivered: counters.redelivered,
    deadLettered: counters.deadLettered,
    ...(counters.lastError !== undefined ? { lastError: counters.lastError } : {}),
    ...(counters.lastErrorTime !== undefined ? { lastErrorTime: counters.lastErrorTime } : {}),
    ...(counters.lastDeliveryTime !== undefined ? { lastDeliveryTime: counters.lastDeliveryTime } : {}),
  };
}
