import { describe, expect, it } from 'vitest';
import { mayRetryElsewhere, neverReadByWorker, ONE_SEGMENT_BYTES, type ResetFacts, type RetryFacts } from './idempotent-retry.ts';

const base: RetryFacts = { method: 'GET', errorCode: 'ECONNRESET', bodyRead: false, headersSent: false, attempts: 0, maxAttempts: 2 };

describe('retrying a request on another worker after its connection failed', () => {
  it('retries the idempotent methods', () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']) expect(mayRetryElsewhere({ ...base, method })).toBe(true);
  });
  it('never a method that may have run once already', () => {
    for (const method of ['POST', 'PATCH', 'CONNECT', 'PROPFIND', 'get']) expect(mayRetryElsewhere({ ...base, method })).toBe(false);
  });
  it('only after a lost connection, never after an answer the router could not use', () => {
    for (const errorCode of ['ECONNRESET', 'EPIPE', 'ECONNABORTED']) expect(mayRetryElsewhere({ ...base, errorCode })).toBe(true);
    for (const errorCode of [undefined, 'ORRERY_BAD_RESPONSE', 'ORRERY_ABORTED', 'ORRERY_HEADERS_TIMEOUT', 'ERR_HTTP2_STREAM_ERROR']) expect(mayRetryElsewhere({ ...base, errorCode })).toBe(false);
  });
  it('not once the body was read, the answer began, or the tries are spent', () => {
    expect(mayRetryElsewhere({ ...base, method: 'PUT', bodyRead: true })).toBe(false);
    expect(mayRetryElsewhere({ ...base, headersSent: true })).toBe(false);
    expect(mayRetryElsewhere({ ...base, attempts: 1 })).toBe(true);
    expect(mayRetryElsewhere({ ...base, attempts: 2 })).toBe(false);
    expect(mayRetryElsewhere({ ...base, maxAttempts: 0 })).toBe(false);
  });
});

describe('a request the worker provably never read', () => {
  const reset: ResetFacts = { errorCode: 'ECONNRESET', sawResponseByte: false, requestBytes: 300 };
  it('is a reset (on read or write) before any response byte, of a request sent whole in one segment', () => {
    expect(neverReadByWorker(reset)).toBe(true);
    expect(neverReadByWorker({ ...reset, errorCode: 'EPIPE' })).toBe(true);
    expect(neverReadByWorker({ ...reset, requestBytes: ONE_SEGMENT_BYTES })).toBe(true);
  });
  it('is never a close, an abort or another error (a FIN comes from a worker that read the request)', () => {
    for (const errorCode of [undefined, 'ECONNABORTED', 'ETIMEDOUT', 'ORRERY_BAD_RESPONSE', 'ORRERY_ABORTED']) expect(neverReadByWorker({ ...reset, errorCode }), String(errorCode)).toBe(false);
  });
  it('is never once the answer began, nor for a streamed body or a request that may span segments', () => {
    expect(neverReadByWorker({ ...reset, sawResponseByte: true })).toBe(false);
    // A streamed body (not one write) is recorded as 0 bytes.
    expect(neverReadByWorker({ ...reset, requestBytes: 0 })).toBe(false);
    expect(neverReadByWorker({ ...reset, requestBytes: ONE_SEGMENT_BYTES + 1 })).toBe(false);
  });
  it('lets any method go to another worker, within the same limits', () => {
    const post: RetryFacts = { ...base, method: 'POST', neverRead: true };
    expect(mayRetryElsewhere(post)).toBe(true);
    expect(mayRetryElsewhere({ ...post, method: 'PATCH' })).toBe(true);
    expect(mayRetryElsewhere({ ...post, neverRead: false })).toBe(false);
    expect(mayRetryElsewhere({ ...post, bodyRead: true })).toBe(false);
    expect(mayRetryElsewhere({ ...post, headersSent: true })).toBe(false);
    expect(mayRetryElsewhere({ ...post, attempts: 2 })).toBe(false);
    expect(mayRetryElsewhere({ ...post, errorCode: 'ORRERY_HEADERS_TIMEOUT' })).toBe(false);
  });
});
