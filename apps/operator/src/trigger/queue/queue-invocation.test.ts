import { describe, expect, it } from 'vitest';
import { FunctionSchema } from '@orrery/spec';
import { type DeliveredMessage, deliveryId, queueInvocation } from './queue-invocation.ts';
import { queueTriggersOf } from './queue-trigger-settings.ts';

const fn = FunctionSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'orders', namespace: 'shop' },
  spec: { template: { source: { inline: 'x' }, timeoutSeconds: 30 }, triggers: { queue: [{ name: 'new', stream: 'ORDERS', subject: 'orders.*', path: '/hook', contentType: 'application/json' }] } },
});
const [settings] = queueTriggersOf(fn);

const msg = (headers: Record<string, string> = {}, over: Partial<DeliveredMessage> = {}): DeliveredMessage => ({
  subject: 'orders.eu',
  data: new TextEncoder().encode('{"id":1}'),
  header: (name) => Object.entries(headers).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1],
  stream: 'ORDERS',
  streamSequence: 42,
  deliveryCount: 2,
  ...over,
});

describe('queueInvocation', () => {
  it('the body unchanged, to the trigger path, with where it came from', () => {
    const call = queueInvocation(msg(), settings!);
    expect(call).toMatchObject({ namespace: 'shop', function: 'orders', trigger: 'queue/new', method: 'POST', path: '/hook', timeoutMs: 35_000 });
    expect(new TextDecoder().decode(call.body as Uint8Array)).toBe('{"id":1}');
    expect(call.headers).toEqual({
      'content-type': 'application/json',
      'Orrery-Delivery-Id': 'ORDERS:42',
      'Orrery-Delivery-Attempt': '2',
      'Orrery-Queue-Stream': 'ORDERS',
      'Orrery-Queue-Subject': 'orders.eu',
    });
  });

  it('the delivery id is the same on every delivery of a message and differs between messages', () => {
    expect(deliveryId(msg({}, { deliveryCount: 1 }))).toBe(deliveryId(msg({}, { deliveryCount: 5 })));
    expect(deliveryId(msg({}, { streamSequence: 43 }))).not.toBe(deliveryId(msg()));
  });

  it("the message's Content-Type wins when it is a media type; otherwise the trigger's", () => {
    expect(queueInvocation(msg({ 'content-type': 'text/plain; charset=utf-8' }), settings!).headers!['content-type']).toBe('text/plain; charset=utf-8');
    expect(queueInvocation(msg({ 'Content-Type': 'evil\r\nX-Injected: 1' }), settings!).headers!['content-type']).toBe('application/json');
    expect(queueInvocation(msg({ 'Content-Type': 'json' }), settings!).headers!['content-type']).toBe('application/json');
    const [plain] = queueTriggersOf({ ...fn, spec: { ...fn.spec, triggers: { cron: [], queue: [{ ...fn.spec.triggers!.queue[0]!, contentType: undefined }] } } });
    expect(queueInvocation(msg(), plain!).headers!['content-type']).toBe('application/octet-stream');
  });

  it('passes Nats-Msg-Id when printable, and no other header of the message', () => {
    const call = queueInvocation(msg({ 'Nats-Msg-Id': 'order-1', Authorization: 'Bearer x', 'Orrery-Tag': 'canary', Host: 'evil', 'X-Custom': 'y' }), settings!);
    expect(call.headers!['Nats-Msg-Id']).toBe('order-1');
    expect(Object.keys(call.headers!).map((h) => h.toLowerCase())).not.toEqual(expect.arrayContaining(['authorization']));
    expect(Object.keys(call.headers!)).toHaveLength(6);
    expect(queueInvocation(msg({ 'Nats-Msg-Id': 'with space' }), settings!).headers!['Nats-Msg-Id']).toBeUndefined();
    expect(queueInvocation(msg({ 'Nats-Msg-Id': 'x'.repeat(257) }), settings!).headers!['Nats-Msg-Id']).toBeUndefined();
  });

  it('a subject that is not printable ASCII is left out rather than refused by node', () => {
    expect(queueInvocation(msg({}, { subject: 'orders.é' }), settings!).headers!['Orrery-Queue-Subject']).toBeUndefined();
  });

  it('carries the abort signal', () => {
    const ac = new AbortController();
    expect(queueInvocation(msg(), settings!, ac.signal).signal).toBe(ac.signal);
  });
});
