/**
 * When a request that already reached a worker may be sent again. RFC 9110 §9.2.2: a client or
 * proxy may automatically retry an idempotent request after a connection failure — browsers,
 * undici and nginx (`proxy_next_upstream error`) do. A worker SIGKILLed or crashed mid-request
 * resets the connection; a GET that was on it goes to another worker instead of failing with 502.
 * A POST or PATCH may have run, so it still fails (running it twice would be worse), as does
 * anything whose body was read (it cannot be sent again) or whose answer already began.
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** The connection itself failed (reset, broken pipe), as opposed to a worker answering something unusable. */
const CONNECTION_LOST: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export interface RetryFacts {
  method: string;
  /** The error's code (`err.code`): only a lost connection is retried, never a bad answer. */
  errorCode: string | undefined;
  /** Any of the request body was read (it is gone). */
  bodyRead: boolean;
  /** The client already has a response head. */
  headersSent: boolean;
  /** Tries so far, and the cap (the router's --dial-retries). */
  attempts: number;
  maxAttempts: number;
}

export function mayRetryElsewhere(f: RetryFacts): boolean {
  return f.errorCode !== undefined && CONNECTION_LOST.has(f.errorCode) && IDEMPOTENT_METHODS.has(f.method) && !f.bodyRead && !f.headersSent && f.attempts < f.maxAttempts;
}
