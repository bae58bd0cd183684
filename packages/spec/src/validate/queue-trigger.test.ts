/**
 * validate() on spec.triggers.queue (docs/triggers.md "Queue"): every field's bounds with its
 * reason at the field's path, the defaults a parsed trigger gets, and NATS subject matching.
 */
import { describe, expect, it } from 'vitest';
import { FunctionSchema } from '../kinds/function.ts';
import { QUEUE_TRIGGER_DEFAULTS, subjectMatches } from '../kinds/function-queue-trigger.ts';
import { validate } from './index.ts';

const fn = (...queue: Array<Record<string, unknown>>) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'orders', namespace: 'shop' },
  spec: { template: { source: { inline: 'x' } }, triggers: { queue } },
});
const ok = { name: 'new-orders', stream: 'ORDERS', subject: 'orders.new' };
const reasons = (...queue: Array<Record<string, unknown>>) => validate(fn(...queue)).map((e) => [e.path, e.reason]);

describe('spec.triggers.queue', () => {
  it('a minimal trigger is valid and gets the defaults', () => {
    expect(reasons(ok)).toEqual([]);
    const parsed = FunctionSchema.parse(fn(ok));
    expect(parsed.spec.triggers?.queue).toEqual([{ ...ok, ...QUEUE_TRIGGER_DEFAULTS, backoff: ['1s', '10s', '1m'] }]);
    expect(parsed.spec.triggers?.cron).toEqual([]);
  });

  it('a full trigger is valid', () => {
    expect(
      reasons({
        ...ok,
        subject: 'orders.*.eu',
        maxInFlight: 8,
        maxDeliver: 3,
        ackWait: '2m',
        backoff: ['0s', '500ms', '1h'],
        deadLetterSubject: 'orders-dead.eu',
        contentType: 'application/json; charset=utf-8',
        path: '/hooks/orders/',
        method: 'PUT',
      }),
    ).toEqual([]);
  });

  it.each([
    ['stream', 'ORDERS.EU', 'queue_stream'],
    ['stream', 'a b', 'queue_stream'],
    ['stream', 'x'.repeat(65), 'queue_stream'],
    ['stream', '', 'queue_stream'],
    ['subject', '', 'queue_subject'],
    ['subject', 'orders..new', 'queue_subject'],
    ['subject', 'orders.>.new', 'queue_subject'],
    ['subject', 'orders.ne*', 'queue_subject'],
    ['subject', '$JS.API.>', 'queue_subject'],
    ['subject', 'orders new', 'queue_subject'],
    ['subject', `${'a.'.repeat(128)}b`, 'queue_subject'],
    ['maxInFlight', 0, 'queue_max_in_flight'],
    ['maxInFlight', 1001, 'queue_max_in_flight'],
    ['maxInFlight', 1.5, 'type'],
    ['maxDeliver', 0, 'queue_max_deliver'],
    ['maxDeliver', 101, 'queue_max_deliver'],
    ['ackWait', '500ms', 'queue_ack_wait'],
    ['ackWait', '2h', 'queue_ack_wait'],
    ['ackWait', 'soon', 'duration_format'],
    ['deadLetterSubject', 'dead.*', 'queue_dead_letter_subject'],
    ['deadLetterSubject', 'dead.>', 'queue_dead_letter_subject'],
    ['contentType', 'json', 'queue_content_type'],
    ['contentType', 'text/plain\r\nX-Evil: 1', 'queue_content_type'],
    ['path', 'hooks', 'queue_path'],
    ['path', '/a/../b', 'queue_path'],
    ['path', '/a?b=c', 'queue_path'],
    ['path', '/a//b', 'queue_path'],
    ['method', 'GET', 'queue_method'],
  ])('%s %j → %s', (field, value, reason) => {
    const errors = reasons({ ...ok, [field]: value });
    expect(errors).toContainEqual([`spec.triggers.queue[0].${field}`, reason]);
  });

  it('backoff: 1 to 16 steps of 0s to 1h, reported at the step', () => {
    expect(reasons({ ...ok, backoff: [] })).toContainEqual(['spec.triggers.queue[0].backoff', 'queue_backoff']);
    expect(reasons({ ...ok, backoff: Array(17).fill('1s') })).toContainEqual(['spec.triggers.queue[0].backoff', 'queue_backoff']);
    expect(reasons({ ...ok, backoff: ['1s', '2h'] })).toContainEqual(['spec.triggers.queue[0].backoff[1]', 'queue_backoff']);
    expect(reasons({ ...ok, backoff: ['-1s'] })).toContainEqual(['spec.triggers.queue[0].backoff[0]', 'queue_backoff']);
  });

  it('stream, subject and name are required', () => {
    expect(reasons({ name: 'x' })).toEqual(
      expect.arrayContaining([
        ['spec.triggers.queue[0].stream', 'required'],
        ['spec.triggers.queue[0].subject', 'required'],
      ]),
    );
    expect(reasons({ stream: 'S', subject: 's' })).toContainEqual(['spec.triggers.queue[0].name', 'required']);
  });

  it('a dead-letter subject the trigger would read again is refused at deadLetterSubject', () => {
    expect(reasons({ ...ok, subject: 'orders.*', deadLetterSubject: 'orders.dead' })).toEqual([['spec.triggers.queue[0].deadLetterSubject', 'queue_dead_letter_loop']]);
    expect(reasons({ ...ok, subject: 'orders.*', deadLetterSubject: 'orders-dead' })).toEqual([]);
  });

  it('names are unique: the repeated one is reported', () => {
    expect(reasons(ok, { ...ok, subject: 'orders.old' }, { ...ok, name: 'other' })).toEqual([['spec.triggers.queue[1].name', 'trigger_name_duplicate']]);
  });

  it('at most 16 triggers', () => {
    const many = Array.from({ length: 17 }, (_, i) => ({ ...ok, name: `t${i}` }));
    expect(reasons(...many)).toContainEqual(['spec.triggers.queue', 'max']);
  });
});

describe('subjectMatches (NATS wildcard rules)', () => {
  it.each([
    ['orders.new', 'orders.new', true],
    ['orders.new', 'orders.old', false],
    ['orders.new', 'orders', false],
    ['orders', 'orders.new', false],
    ['orders.*', 'orders.new', true],
    ['orders.*', 'orders', false],
    ['orders.*', 'orders.new.eu', false],
    ['*.new', 'orders.new', true],
    ['*.*', 'a.b', true],
    ['*', 'a', true],
    ['*', 'a.b', false],
    ['orders.>', 'orders.new', true],
    ['orders.>', 'orders.new.eu', true],
    ['orders.>', 'orders', false],
    ['>', 'a', true],
    ['>', 'a.b.c', true],
    ['*.>', 'a', false],
    ['*.>', 'a.b', true],
    ['a.*.c', 'a.b.c', true],
    ['a.*.c', 'a.b.d', false],
  ])('%s matches %s: %s', (filter, subject, expected) => {
    expect(subjectMatches(filter, subject)).toBe(expected);
  });
});
