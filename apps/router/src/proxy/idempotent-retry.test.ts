import { describe, expect, it } from 'vitest';
import { mayRetryElsewhere, type RetryFacts } from './idempotent-retry.ts';

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
