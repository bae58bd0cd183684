import { describe, expect, it } from 'vitest';
import { afterInvoke, backoffAfter, beforeInvoke, deadLetterFailed } from './queue-delivery-outcome.ts';

const rules = { maxDeliver: 3, backoffMs: [1000, 10_000] };

describe('backoffAfter', () => {
  it.each([
    [[1000, 10_000, 60_000], 1, 1000],
    [[1000, 10_000, 60_000], 2, 10_000],
    [[1000, 10_000, 60_000], 3, 60_000],
    [[1000, 10_000, 60_000], 4, 60_000],
    [[1000, 10_000, 60_000], 100, 60_000],
    [[500], 1, 500],
    [[500], 7, 500],
    [[0, 0], 2, 0],
    [[1000, 2000], 0, 1000],
    [[], 3, 0],
  ])('%j after failure %i → %i ms', (steps, failures, ms) => {
    expect(backoffAfter(steps, failures)).toBe(ms);
  });
});

describe('beforeInvoke', () => {
  it.each([
    [1, 'invoke'],
    [3, 'invoke'],
    [4, 'dead-letter'],
    [40, 'dead-letter'],
  ])('delivery %i of max 3 → %s', (count, expected) => {
    expect(beforeInvoke(count, rules)).toBe(expected);
  });
  it('maxDeliver 1: the first delivery is invoked, a second one is dead-lettered', () => {
    expect(beforeInvoke(1, { ...rules, maxDeliver: 1 })).toBe('invoke');
    expect(beforeInvoke(2, { ...rules, maxDeliver: 1 })).toBe('dead-letter');
  });
});

describe('afterInvoke', () => {
  it.each([200, 201, 202, 204, 299])('a %i acks, whatever the delivery', (status) => {
    expect(afterInvoke({ status }, 1, rules)).toEqual({ action: 'ack' });
    expect(afterInvoke({ status }, 3, rules)).toEqual({ action: 'ack' });
  });

  it.each([100, 199, 301, 304, 400, 404, 409, 429, 500, 502, 503, 504])('a %i is a failure (redirects are not followed)', (status) => {
    expect(afterInvoke({ status }, 1, rules)).toEqual({ action: 'nak', delayMs: 1000, error: `the Function answered ${status} (delivery 1 of 3)` });
  });

  it('no answer (refused, timeout) is a failure with its reason', () => {
    expect(afterInvoke({ error: 'no complete answer within 35000 ms' }, 2, rules)).toEqual({
      action: 'nak',
      delayMs: 10_000,
      error: 'no complete answer within 35000 ms (delivery 2 of 3)',
    });
    expect(afterInvoke({}, 1, rules)).toMatchObject({ action: 'nak', error: 'no answer (delivery 1 of 3)' });
  });

  it('the maxDeliver-th failure (or a later one) is dead-lettered', () => {
    expect(afterInvoke({ status: 500 }, 3, rules)).toEqual({ action: 'dead-letter', error: 'the Function answered 500 (delivery 3 of 3)' });
    expect(afterInvoke({ error: 'ECONNREFUSED' }, 5, rules)).toEqual({ action: 'dead-letter', error: 'ECONNREFUSED (delivery 5 of 3)' });
    expect(afterInvoke({ status: 500 }, 1, { ...rules, maxDeliver: 1 })).toMatchObject({ action: 'dead-letter' });
  });

  it('a status wins over an error that came with it (the answer was cut off after its head)', () => {
    expect(afterInvoke({ status: 200, error: 'answer cut off: ECONNRESET' }, 1, rules)).toEqual({ action: 'ack' });
    expect(afterInvoke({ status: 503, error: 'answer cut off' }, 1, rules)).toMatchObject({ action: 'nak', error: expect.stringContaining('answered 503') });
  });
});

describe('deadLetterFailed', () => {
  it('delivers again after the last backoff step, so the message is never dropped', () => {
    expect(deadLetterFailed('503 no stream captures orders.dead', rules)).toEqual({
      action: 'nak',
      delayMs: 10_000,
      error: 'dead letter not published, delivering again: 503 no stream captures orders.dead',
    });
  });
});
