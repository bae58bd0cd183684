/**
 * When a request that already reached a worker may be sent again. RFC 9110 §9.2.2: a client or
 * proxy may automatically retry an idempotent request after a connection failure — browsers,
 * undici and nginx (`proxy_next_upstream error`) do. A worker SIGKILLed or crashed mid-request
 * resets the connection; a GET that was on it goes to another worker instead of failing with 502.
 * A POST or PATCH may have run, so it fails (running it twice would be worse) — unless the worker
 * provably never read it (neverReadByWorker), or its Function asked for a replay with the same
 * invocation id (mayReplayElsewhere) — as does anything whose body was read (it cannot be sent
 * again) or whose answer already began.
 */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE', 'PUT', 'DELETE']);

/** The connection itself failed (reset, broken pipe, a FIN mid-response), as opposed to a worker answering something unusable. */
const CONNECTION_LOST: ReadonlySet<string> = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED']);

export interface RetryFacts {
  method: string;
  /** The error's code (`err.code`): only a lost connection is retried, never a bad answer. */
  errorCode: string | undefined;
  /** Any of the request body was read (it is gone). */
  bodyRead: boolean;
  /** The client already has a response head. */
  headersSent: boolean;
  /** Tries so far after a lost connection (refused dials and draining refusals not counted), and the cap (the router's --dial-retries). */
  attempts: number;
  maxAttempts: number;
  /** The worker never read any of the request (neverReadByWorker): any method may go again. */
  neverRead?: boolean;
}

/**
 * A request the worker never read ran nothing, so — like a refused dial or a draining refusal —
 * earlier losses do not stop it (a rollout's closing workers can reset several in a row); the
 * caller bounds all of a request's attempts (refused-dial-budget.ts). `maxAttempts` 0
 * (`--dial-retries 0`) still means never.
 */
export function mayRetryElsewhere(f: RetryFacts): boolean {
  const withinLosses = f.neverRead === true ? f.maxAttempts > 0 : f.attempts < f.maxAttempts;
  return f.errorCode !== undefined && CONNECTION_LOST.has(f.errorCode) && (IDEMPOTENT_METHODS.has(f.method) || f.neverRead === true) && !f.bodyRead && !f.headersSent && withinLosses;
}

/** How the request goes to its worker: only requests on the HTTP/1.1 leg are replayed. */
export type UpstreamLeg = 'http1' | 'websocket' | 'grpc';

export interface ReplayFacts {
  /** The revision's `spec.template.onWorkerLoss` is `replay`. */
  replayOnWorkerLoss: boolean;
  leg: UpstreamLeg;
  /** The error's code (`err.code`): a FIN mid-response arrives as ECONNRESET ("closed the connection mid-response"). */
  errorCode: string | undefined;
  /** The router can send the request again whole: it has no body, or the router holds all of it (held-request-body.ts). */
  bodyHeld: boolean;
  /** The client already has a response head. */
  headersSent: boolean;
  /** Tries so far after a lost connection (refused dials and draining refusals not counted), and the cap (the router's --dial-retries). */
  attempts: number;
  maxAttempts: number;
}

/**
 * When a request whose worker died after reading it — it may have run — goes to another worker
 * anyway, whatever its method: its Function asked for it (`onWorkerLoss: replay`), and the
 * second run carries the same Orrery-Invocation-Id, so its ctx.state calls get the first run's
 * answers instead of applying again. Never once the answer began (the client holds part of the
 * first run's), never on a timeout (the worker may still be running it: not a lost worker), never
 * for a WebSocket handshake (a session, not an invocation) or a gRPC call (streams both ways
 * over HTTP/2: not replayed), and never without the whole body in hand.
 */
export function mayReplayElsewhere(f: ReplayFacts): boolean {
  return f.replayOnWorkerLoss && f.leg === 'http1' && f.errorCode !== undefined && CONNECTION_LOST.has(f.errorCode) && f.bodyHeld && !f.headersSent && f.attempts < f.maxAttempts;
}

/**
 * The largest request that leaves in one TCP segment on any network a worker sits on: IPv6's
 * minimum MTU (1280) less the IPv6 and TCP headers with options. Pod networks (overlays included)
 * run 1400 and more; loopback 65 536.
 */
export const ONE_SEGMENT_BYTES = 1200;

export interface ResetFacts {
  /** The socket error's code: a reset (ECONNRESET on read or write, EPIPE) — not a close (FIN). */
  errorCode: string | undefined;
  /** Any byte of the response arrived. */
  sawResponseByte: boolean;
  /** The request's size when it went out whole (head and any body) in one write; 0 when it did not (a streamed body) or has not yet. */
  requestBytes: number;
}

/**
 * When a reset proves the worker never read the request, so it cannot have run. A kernel answers
 * a closing socket's peer with a reset instead of a FIN only when data sat unread in it (RFC 2525
 * §2.17; Linux, BSD) or when the socket was already gone when the data came. A worker killed
 * while it handles a request it has read sends a FIN, which the router never takes for this
 * (`closed the connection mid-response`). With the request in one segment, "unread" means none of
 * it — not a head read while the rest waited. What stays possible is a worker that read a request
 * and then reset the connection on purpose (SO_LINGER 0): Orrery's runtimes never do.
 */
export function neverReadByWorker(f: ResetFacts): boolean {
  return (f.errorCode === 'ECONNRESET' || f.errorCode === 'EPIPE') && !f.sawResponseByte && f.requestBytes > 0 && f.requestBytes <= ONE_SEGMENT_BYTES;
}
