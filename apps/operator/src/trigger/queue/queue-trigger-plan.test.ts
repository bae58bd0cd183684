import { describe, expect, it } from 'vitest';
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { consumerMoves, planQueueTriggers } from './queue-trigger-plan.ts';
import { queueConsumerConfig, queueConsumerName, queueTriggersOf, type QueueTriggerSettings } from './queue-trigger-settings.ts';

const fn = (name: string, queue: Array<Record<string, unknown>>, extra: Record<string, unknown> = {}): OrreryFunction =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: 'shop', ...extra },
    spec: { template: { source: { inline: 'x' }, timeoutSeconds: 10 }, triggers: { queue } },
  });
const byKey = (list: QueueTriggerSettings[]) => new Map(list.map((s) => [s.key, s]));

describe('queueTriggersOf', () => {
  it('reads the spec with defaults and durations in ms', () => {
    const [s] = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.new', backoff: ['500ms', '2m'], ackWait: '1m', maxInFlight: 4 }]));
    expect(s).toEqual({
      key: 'shop/orders/new',
      namespace: 'shop',
      function: 'orders',
      name: 'new',
      stream: 'ORDERS',
      subject: 'orders.new',
      consumer: 'orrery_shop_orders_new',
      maxInFlight: 4,
      maxDeliver: 5,
      ackWaitMs: 60_000,
      backoffMs: [500, 120_000],
      deadLetterSubject: undefined,
      contentType: 'application/octet-stream',
      method: 'POST',
      path: '/',
      invokeTimeoutMs: 15_000,
    });
  });

  it('none for a Function being deleted, or without triggers', () => {
    expect(queueTriggersOf(fn('a', [{ name: 'x', stream: 'S', subject: 's' }], { deletionTimestamp: '2026-01-01T00:00:00Z' }))).toEqual([]);
    expect(queueTriggersOf(fn('a', []))).toEqual([]);
  });

  it('consumer names cannot collide across namespace and function boundaries', () => {
    expect(queueConsumerName('a-b', 'c', 't')).not.toBe(queueConsumerName('a', 'b-c', 't'));
    expect(queueConsumerName('a', 'b', 'c-d')).not.toBe(queueConsumerName('a', 'b-c', 'd'));
  });

  it('the consumer: explicit acks, unlimited broker redeliveries, max ack pending = maxInFlight, ack wait in ns', () => {
    const [s] = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.*', maxInFlight: 3, ackWait: '45s' }]));
    expect(queueConsumerConfig(s!)).toEqual({
      durable_name: 'orrery_shop_orders_new',
      filter_subject: 'orders.*',
      ack_policy: 'explicit',
      deliver_policy: 'all',
      max_deliver: -1,
      ack_wait: 45_000_000_000,
      max_ack_pending: 3,
      description: 'Orrery queue trigger new of Function shop/orders',
    });
  });
});

describe('planQueueTriggers', () => {
  const a = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.new' }, { name: 'old', stream: 'ORDERS', subject: 'orders.old' }]));
  it('starts what is new', () => {
    expect(planQueueTriggers(a, new Map())).toEqual({ start: a, change: [], remove: [] });
  });
  it('nothing when nothing changed', () => {
    expect(planQueueTriggers(a, byKey(a))).toEqual({ start: [], change: [], remove: [] });
  });
  it('changes a trigger whose settings changed, including the Function template timeout', () => {
    const b = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.new', maxInFlight: 2 }, { name: 'old', stream: 'ORDERS', subject: 'orders.old' }]));
    expect(planQueueTriggers(b, byKey(a))).toEqual({ start: [], change: [{ from: a[0], to: b[0] }], remove: [] });
  });
  it('removes a trigger gone from its Function and every trigger of a Function gone', () => {
    expect(planQueueTriggers([a[0]!], byKey(a))).toEqual({ start: [], change: [], remove: [a[1]] });
    expect(planQueueTriggers([], byKey(a))).toEqual({ start: [], change: [], remove: a });
  });
  it('a consumer moves only when the stream changes', () => {
    const moved = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS2', subject: 'orders.new' }]))[0]!;
    const tuned = queueTriggersOf(fn('orders', [{ name: 'new', stream: 'ORDERS', subject: 'orders.*', maxDeliver: 9 }]))[0]!;
    expect(consumerMoves(a[0]!, moved)).toBe(true);
    expect(consumerMoves(a[0]!, tuned)).toBe(false);
  });
});
