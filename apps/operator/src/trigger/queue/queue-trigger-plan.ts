/**
 * Which queue triggers to start, change or stop, from every Function's spec (level-triggered:
 * the whole table each time, so a missed event changes nothing). Pure.
 */
import { isDeepStrictEqual } from 'node:util';
import type { QueueTriggerSettings } from './queue-trigger-settings.ts';

export interface QueueTriggerPlan {
  start: QueueTriggerSettings[];
  /** Settings changed: the consumer is updated (or moved to another stream) and the trigger restarted. */
  change: Array<{ from: QueueTriggerSettings; to: QueueTriggerSettings }>;
  /** Gone from its Function, or the Function is gone: stopped, and its consumer deleted. */
  remove: QueueTriggerSettings[];
}

export function planQueueTriggers(desired: readonly QueueTriggerSettings[], running: ReadonlyMap<string, QueueTriggerSettings>): QueueTriggerPlan {
  const plan: QueueTriggerPlan = { start: [], change: [], remove: [] };
  const wanted = new Set<string>();
  for (const to of desired) {
    wanted.add(to.key);
    const from = running.get(to.key);
    if (!from) plan.start.push(to);
    else if (!isDeepStrictEqual(from, to)) plan.change.push({ from, to });
  }
  for (const [key, s] of running) if (!wanted.has(key)) plan.remove.push(s);
  return plan;
}

/** Whether a change needs a new consumer rather than an update of the one there (JetStream cannot move a consumer between streams). */
export function consumerMoves(from: QueueTriggerSettings, to: QueueTriggerSettings): boolean {
  return from.stream !== to.stream || from.consumer !== to.consumer;
}
