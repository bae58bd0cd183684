import { describe, expect, it } from 'vitest';
import { FunctionSchema, FunctionStatusSchema } from '@orrery/spec';
import { countQueueEvent, NO_COUNTS, type QueueEvent, queueTriggerStatus, seedCounters } from './queue-trigger-counters.ts';
import { queueTriggersOf } from './queue-trigger-settings.ts';

const t1 = new Date('2026-12-03T10:00:00Z');
const t2 = new Date('2026-12-03T10:00:05Z');
const run = (events: QueueEvent[]) => events.reduce(countQueueEvent, NO_COUNTS);

describe('countQueueEvent', () => {
  it('a message acked on its first delivery', () => {
    expect(run([{ type: 'delivered', deliveryCount: 1, at: t1 }, { type: 'acked' }])).toEqual({ delivered: 1, acked: 1, redelivered: 0, deadLettered: 0, lastDeliveryTime: t1.toISOString() });
  });

  it('a message that failed twice, then acked: three deliveries, two of them redeliveries, the last error kept', () => {
    const c = run([
      { type: 'delivered', deliveryCount: 1, at: t1 },
      { type: 'failed', error: 'the Function answered 500', at: t1 },
      { type: 'delivered', deliveryCount: 2, at: t1 },
      { type: 'failed', error: 'timeout', at: t2 },
      { type: 'delivered', deliveryCount: 3, at: t2 },
      { type: 'acked' },
    ]);
    expect(c).toEqual({ delivered: 3, acked: 1, redelivered: 2, deadLettered: 0, lastError: 'timeout', lastErrorTime: t2.toISOString(), lastDeliveryTime: t2.toISOString() });
  });

  it('a dead letter counts and says why; a broker error only sets the last error', () => {
    const c = run([{ type: 'delivered', deliveryCount: 5, at: t1 }, { type: 'dead-lettered', error: 'answered 500 (delivery 5 of 5)', at: t1 }, { type: 'broker-error', error: 'connection closed', at: t2 }]);
    expect(c).toMatchObject({ delivered: 1, redelivered: 1, deadLettered: 1, acked: 0, lastError: 'connection closed', lastErrorTime: t2.toISOString() });
  });

  it('never mutates its input', () => {
    const before = { ...NO_COUNTS };
    countQueueEvent(before, { type: 'acked' });
    expect(before).toEqual(NO_COUNTS);
  });
});

describe('seedCounters', () => {
  const previous = { name: 'new', consumer: 'orrery_shop_orders_new', delivered: 10, acked: 8, redelivered: 3, deadLettered: 1, lastError: 'x', lastErrorTime: t1.toISOString() };
  it('continues from the last status of the same consumer', () => {
    expect(seedCounters(previous, 'orrery_shop_orders_new')).toEqual({ delivered: 10, acked: 8, redelivered: 3, deadLettered: 1, lastError: 'x', lastErrorTime: t1.toISOString() });
  });
  it('starts from zero for another consumer, no status, or counts that are not counts', () => {
    expect(seedCounters(previous, 'orrery_shop_orders_other')).toEqual(NO_COUNTS);
    expect(seedCounters(undefined, 'c')).toEqual(NO_COUNTS);
    expect(seedCounters({ name: 'new', consumer: 'c', delivered: -1, acked: 1.5 }, 'c')).toEqual(NO_COUNTS);
  });
});

describe('queueTriggerStatus', () => {
  const fn = FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'orders', namespace: 'shop' },
    spec: { template: { source: { inline: 'x' } }, triggers: { queue: [{ name: 'new', stream: 'ORDERS', subject: 'orders.new' }] } },
  });
  const [s] = queueTriggersOf(fn);
  it('one entry: names, condition, depth and counters', () => {
    const st = queueTriggerStatus(s!, { ...NO_COUNTS, delivered: 2, acked: 2 }, { ready: true, reason: 'Consuming', message: 'consuming ORDERS orders.new' }, 4);
    expect(st).toEqual({
      name: 'new',
      stream: 'ORDERS',
      consumer: 'orrery_shop_orders_new',
      ready: true,
      reason: 'Consuming',
      message: 'consuming ORDERS orders.new',
      pending: 4,
      delivered: 2,
      acked: 2,
      redelivered: 0,
      deadLettered: 0,
    });
    // It parses as the status schema says (what the store validates on write).
    expect(FunctionStatusSchema.parse({ triggers: { queue: [st] } }).triggers?.queue).toEqual([st]);
  });
  it('no depth while it is unknown (no broker)', () => {
    expect(queueTriggerStatus(s!, NO_COUNTS, { ready: false, reason: 'NoBroker', message: 'm' }, undefined)).not.toHaveProperty('pending');
  });
});
