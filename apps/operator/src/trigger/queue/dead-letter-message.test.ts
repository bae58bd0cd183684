import { describe, expect, it } from 'vitest';
import { deadLetterMessage } from './dead-letter-message.ts';

const m = { stream: 'ORDERS', streamSequence: 7, subject: 'orders.new', deliveryCount: 5 };
const s = { namespace: 'shop', function: 'orders', name: 'new' };
const now = new Date('2026-12-03T10:00:00Z');

describe('deadLetterMessage', () => {
  it('keeps the original headers and says where the message came from and why', () => {
    const dl = deadLetterMessage(m, [['Content-Type', 'application/json'], ['X-Tenant', 'a']], s, 'the Function answered 500 (delivery 5 of 5)', now);
    expect(dl.headers).toEqual([
      ['Content-Type', 'application/json'],
      ['X-Tenant', 'a'],
      ['Orrery-Dead-Letter-Reason', 'the Function answered 500 (delivery 5 of 5)'],
      ['Orrery-Dead-Letter-Stream', 'ORDERS'],
      ['Orrery-Dead-Letter-Subject', 'orders.new'],
      ['Orrery-Dead-Letter-Sequence', '7'],
      ['Orrery-Dead-Letter-Deliveries', '5'],
      ['Orrery-Dead-Letter-Function', 'shop/orders'],
      ['Orrery-Dead-Letter-Trigger', 'new'],
      ['Orrery-Dead-Letter-Time', '2026-12-03T10:00:00.000Z'],
    ]);
  });

  it("drops NATS' control headers and forged dead-letter headers of the original", () => {
    const dl = deadLetterMessage(m, [['Nats-Msg-Id', 'x'], ['Nats-Expected-Stream', 'Y'], ['nats-rollup', 'all'], ['Orrery-Dead-Letter-Reason', 'forged']], s, 'r', now);
    expect(dl.headers.map(([k]) => k)).not.toContain('Nats-Msg-Id');
    expect(dl.headers.filter(([k]) => k.toLowerCase().startsWith('nats-'))).toEqual([]);
    expect(dl.headers.filter(([k]) => k === 'Orrery-Dead-Letter-Reason')).toEqual([['Orrery-Dead-Letter-Reason', 'r']]);
  });

  it('one message id per original message: a second publish is deduplicated by the broker', () => {
    expect(deadLetterMessage(m, [], s, 'a', now).msgId).toBe('orrery-dead-letter:ORDERS:7');
    expect(deadLetterMessage({ ...m, deliveryCount: 9 }, [], s, 'b', now).msgId).toBe('orrery-dead-letter:ORDERS:7');
    expect(deadLetterMessage({ ...m, streamSequence: 8 }, [], s, 'a', now).msgId).toBe('orrery-dead-letter:ORDERS:8');
  });

  it('a reason is one bounded line', () => {
    const dl = deadLetterMessage(m, [], s, `a\r\nb${'x'.repeat(1000)}`, now);
    const reason = dl.headers.find(([k]) => k === 'Orrery-Dead-Letter-Reason')![1];
    expect(reason).not.toMatch(/[\r\n]/);
    expect(reason.length).toBe(512);
  });
});
