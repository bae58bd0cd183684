import { TRPCClientError } from '@trpc/client';
import { describe, expect, it } from 'vitest';
import { isNetworkFailure, LOGIN_NETWORK_RETRIES, loginRetryDelayMs, retryLoginAfter } from './network-failure.ts';

// What tRPC's links make of a fetch that rejected, and of an answer the API sent.
const fetchRejected = (message: string) => TRPCClientError.from(new TypeError(message));
const apiAnswered = () =>
  TRPCClientError.from({ error: { message: 'invalid credentials', code: -32001, data: { code: 'UNAUTHORIZED', httpStatus: 401 } } });

describe('isNetworkFailure', () => {
  it.each(['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed'])('a fetch that rejected with a TypeError (%s) is one', (message) => {
    expect(isNetworkFailure(fetchRejected(message))).toBe(true);
  });
  it('an answer from the API is not, whatever its status', () => {
    expect(isNetworkFailure(apiAnswered())).toBe(false);
  });
  it('an abort is not (the user or the page cancelled)', () => {
    expect(isNetworkFailure(TRPCClientError.from(new DOMException('The operation was aborted.', 'AbortError')))).toBe(false);
  });
  it('anything else is not', () => {
    for (const x of [undefined, null, 'Failed to fetch', new TypeError('Failed to fetch'), new Error('x'), { cause: 'Failed to fetch' }]) expect(isNetworkFailure(x)).toBe(false);
  });
});

describe('retryLoginAfter', () => {
  it(`sends a login again after a network failure, at most ${LOGIN_NETWORK_RETRIES} times`, () => {
    const err = fetchRejected('Failed to fetch');
    expect(Array.from({ length: 4 }, (_, n) => retryLoginAfter(n, err))).toEqual([true, true, false, false]);
  });
  it('never after the API answered (wrong token, rate limit)', () => {
    expect(retryLoginAfter(0, apiAnswered())).toBe(false);
  });
  it('waits longer each time', () => {
    expect([0, 1].map(loginRetryDelayMs)).toEqual([400, 800]);
  });
});
