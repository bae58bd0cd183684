import { describe, expect, it } from 'vitest';
import { mayReplayElsewhere, mayRetryElsewhere, neverReadByWorker, ONE_SEGMENT_BYTES, type ReplayFacts, type ResetFacts, type RetryFacts, type UpstreamLeg } from './idempotent-retry.ts';

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
    expect(mayRetryElsewhere({ ...post, errorCode: 'ORRERY_HEADERS_TIMEOUT' })).toBe(false);
  });
  it('whatever losses came before: it ran nothing, like a refused dial (the caller bounds every attempt), but never with --dial-retries 0', () => {
    const post: RetryFacts = { ...base, method: 'POST', neverRead: true };
    // A rollout: two workers lost the request after reading it, then a third reset it unread (the 2026-12-05 soak's 502s).
    expect(mayRetryElsewhere({ ...post, attempts: 2 })).toBe(true);
    expect(mayRetryElsewhere({ ...base, attempts: 2, neverRead: true })).toBe(true);
    expect(mayRetryElsewhere({ ...post, attempts: 2, neverRead: false })).toBe(false);
    expect(mayRetryElsewhere({ ...post, maxAttempts: 0 })).toBe(false);
  });
});

describe('replaying a request whose worker was lost (onWorkerLoss: replay)', () => {
  const lost: ReplayFacts = { replayOnWorkerLoss: true, leg: 'http1', errorCode: 'ECONNRESET', bodyHeld: true, headersSent: false, attempts: 0, maxAttempts: 2 };

  it('replays a request read by a worker that then died, whatever the method (the id makes the second run replay the first)', () => {
    expect(mayReplayElsewhere(lost)).toBe(true);
    // The FIN of a worker killed after reading ("closed the connection mid-response") arrives as ECONNRESET.
    for (const errorCode of ['ECONNRESET', 'EPIPE', 'ECONNABORTED']) expect(mayReplayElsewhere({ ...lost, errorCode })).toBe(true);
  });

  it('never for a Function that did not ask for it', () => {
    expect(mayReplayElsewhere({ ...lost, replayOnWorkerLoss: false })).toBe(false);
  });

  it('never on a timeout, a refused dial, a bad answer or an abort: only a lost connection', () => {
    for (const errorCode of [undefined, 'ORRERY_HEADERS_TIMEOUT', 'ORRERY_BODY_TIMEOUT', 'ORRERY_CONNECT_TIMEOUT', 'ECONNREFUSED', 'ETIMEDOUT', 'ORRERY_BAD_RESPONSE', 'ORRERY_ABORTED', 'ORRERY_BODY_TOO_LARGE', 'ORRERY_WORKER_DRAINING', 'ORRERY_STREAM_RESET', 'ERR_HTTP2_STREAM_ERROR']) {
      expect(mayReplayElsewhere({ ...lost, errorCode }), String(errorCode)).toBe(false);
    }
  });

  it('never for a WebSocket handshake or a gRPC call', () => {
    expect(mayReplayElsewhere({ ...lost, leg: 'websocket' })).toBe(false);
    expect(mayReplayElsewhere({ ...lost, leg: 'grpc' })).toBe(false);
  });

  it('never without the whole body in hand, once the answer began, or past the tries', () => {
    expect(mayReplayElsewhere({ ...lost, bodyHeld: false })).toBe(false);
    expect(mayReplayElsewhere({ ...lost, headersSent: true })).toBe(false);
    expect(mayReplayElsewhere({ ...lost, attempts: 1 })).toBe(true);
    expect(mayReplayElsewhere({ ...lost, attempts: 2 })).toBe(false);
    expect(mayReplayElsewhere({ ...lost, maxAttempts: 0 })).toBe(false);
  });

  it('over every combination of the facts, replays exactly when all six conditions hold', () => {
    const codes = [undefined, 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'ECONNREFUSED', 'ORRERY_HEADERS_TIMEOUT', 'ORRERY_BODY_TIMEOUT', 'ORRERY_BAD_RESPONSE', 'ORRERY_ABORTED'];
    const legs: UpstreamLeg[] = ['http1', 'websocket', 'grpc'];
    let replayed = 0;
    let cases = 0;
    for (const replayOnWorkerLoss of [false, true])
      for (const leg of legs)
        for (const errorCode of codes)
          for (const bodyHeld of [false, true])
            for (const headersSent of [false, true])
              for (const maxAttempts of [0, 1, 2])
                for (let attempts = 0; attempts <= 3; attempts++) {
                  const f: ReplayFacts = { replayOnWorkerLoss, leg, errorCode, bodyHeld, headersSent, attempts, maxAttempts };
                  const want = replayOnWorkerLoss && leg === 'http1' && (errorCode === 'ECONNRESET' || errorCode === 'EPIPE' || errorCode === 'ECONNABORTED') && bodyHeld && !headersSent && attempts < maxAttempts;
                  expect(mayReplayElsewhere(f), JSON.stringify(f)).toBe(want);
                  cases++;
                  if (want) replayed++;
                }
    // 3 lost-connection codes × the (attempts < maxAttempts) pairs: 0 for max 0, 1 for max 1, 2 for max 2.
    expect([cases, replayed]).toEqual([2 * 3 * 9 * 2 * 2 * 3 * 4, 3 * 3]);
  });
});
