import { createServer, STATUS_CODES, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Http2Server, Http2Session, ServerHttp2Stream } from 'node:http2';
import type { AddressInfo, Server as NetServer, Socket } from 'node:net';
import { GrpcStatus, ROUTER_CANNOT_RESEND_HEADER, WORKER_DRAINING_HEADER } from '@orrery/sdk';
import { BreakerError, type ConcurrencyBreaker, type Release } from './breaker.ts';
import { ConcurrencyMeter } from './concurrency-meter.ts';
import type { FunctionContext, FunctionHandler, WebSocketHandler } from './function-context.ts';
import { BodyTooLargeError, discardRestOfBody, toWebRequest } from './http/to-web-request.ts';
import { writeWebResponse } from './http/write-web-response.ts';
import { JsonBodyError, readJsonBody, refuseRestOfBody, routes, sendJson, urlPath, type RouteTable } from '@orrery/control-http';
import { KEY_MOVED_HEADER } from '@orrery/sdk';
import { INVOCATION_ID_HEADER_LOWER } from '@orrery/spec/invocation-id';
import type { Logger } from '@orrery/log';
import type { Tracer } from '@orrery/tracing';
import { InvocationTrace } from './tracing/invocation-trace.ts';
import { bindInvocation } from './replayable-invocation.ts';
import { refuseHandshake } from './websocket/handshake-refusal.ts';
import { CLOSE_GOING_AWAY, WebSocketSessions } from './websocket/websocket-sessions.ts';
import type { GrpcMethods } from './grpc/grpc-export.ts';
import { refuseGrpc, runGrpcCall, type GrpcOutcome } from './grpc/grpc-call.ts';
import { parseGrpcTimeout } from '@orrery/h2c';
import { protocolSniffingServer } from './http2/protocol-sniffer.ts';

/** A loaded function together with its queue-proxy settings. */
export interface ActiveFunction {
  namespace: string;
  function: string;
  revision: string;
  handler: FunctionHandler;
  /** The module's `websocket` export: WebSocket handshakes are refused without one. */
  websocket?: WebSocketHandler;
  /** The module's `grpc` export: gRPC calls are answered 12 UNIMPLEMENTED without one. */
  grpc?: GrpcMethods;
  /** The keyspace `ctx.state` is bound to (stateful functions); named on the state call spans. */
  keyspace?: string;
  /** The context shared by every request; `trace` (and `state`'s trace binding) are per request. */
  ctx: FunctionContext;
  breaker: ConcurrencyBreaker;
  /** Time to the response head, counted from arrival (queueing included); 0 = none. */
  timeoutMs: number;
}

/** Answer of the specialize hook (pool mode), sent as JSON. */
export interface AdminAnswer {
  status: number;
  body: unknown;
}

export interface WorkerServerOptions {
  host: string;
  port: number;
  /** Serve runtime routes on their own listener; undefined = reserved paths on the main port. */
  adminPort?: number;
  maxRequestBytes: number;
  log: Logger;
  /** Pool mode: a generic worker is ready before it has a function (ready to be specialized). */
  readyWithoutFunction?: boolean;
  /** Handles `POST /v1/specialize` with the parsed JSON body. */
  specialize?: (body: unknown) => Promise<AdminAnswer>;
  /**
   * Checks the `Authorization` header of `POST /v1/specialize` (the single-use nonce gate) before
   * the body is read: a refusal is answered as is; undefined lets the call through.
   */
  admitSpecialize?: (authorization: string | undefined) => AdminAnswer | undefined;
  now?: () => number;
  /** Ping period of open WebSockets (a peer that misses one ping is cut); default 30 s, 0 = none. */
  webSocketHeartbeatMs?: number;
  /** Tracing on (`--otlp-endpoint`): a span per invocation; absent = the caller's trace context is passed on unrecorded. */
  tracer?: Tracer;
}

const MAX_ADMIN_BODY_BYTES = 16 * 1024 * 1024;

/** Paths the runtime keeps for itself when it shares the port with the function. */
export function isRuntimePath(path: string): boolean {
  return path === '/healthz' || path === '/readyz' || path.startsWith('/v1/');
}

/**
 * The worker's HTTP face, in the role of Knative's queue-proxy: concurrency breaker with a
 * local FIFO, time-to-first-byte timeout, streamed bodies, per-second stats, health, drain.
 */
export class WorkerServer {
  private active: ActiveFunction | undefined;
  private draining = false;
  /** A pool worker that can never be specialized (nonce used, load failed): not ready. */
  private spent = false;
  private pending = 0;
  private idleWaiters: (() => void)[] = [];
  /** HTTP/1.1 function responses in flight: a drain turns their keep-alive off (drain()). */
  private readonly openResponses = new Set<ServerResponse>();
  private readonly main: Server;
  /**
   * HTTP/2 cleartext (prior knowledge) on the main port: gRPC and fetch-style requests. Made on
   * the first HTTP/2 connection: loading node:http2 costs ~6 ms of a cold start, and most
   * workers only ever speak HTTP/1.1 (docs/performance.md "coldstart").
   */
  private h2: Http2Server | undefined;
  private readonly h2Sessions = new Set<Http2Session>();
  /** The main port's listener: it hands each connection to `main` or `h2` by its first bytes. */
  private readonly front: NetServer;
  private readonly admin: Server | undefined;
  private readonly adminRoutes = this.routeTable();
  /** In-flight plus queued, as Knative's queue-proxy reports concurrency. */
  private meter: ConcurrencyMeter;
  private inFlightMeter: ConcurrencyMeter;
  private readonly webSockets: WebSocketSessions;

  constructor(private readonly opts: WorkerServerOptions) {
    this.meter = new ConcurrencyMeter(opts.now);
    this.inFlightMeter = new ConcurrencyMeter(opts.now);
    const sharedPort = opts.adminPort === undefined;
    this.main = createServer((req, res) => {
      const path = urlPath(req.url);
      if (sharedPort && isRuntimePath(path)) void this.serveAdmin(req, res);
      else void this.serveFunction(req, res);
    });
    // The function's timeout and the breaker govern requests; Node's whole-request timer would cut long streams.
    this.main.requestTimeout = 0;
    // A message is a request body by another name: the same cap.
    this.webSockets = new WebSocketSessions({ maxPayloadBytes: opts.maxRequestBytes, heartbeatMs: opts.webSocketHeartbeatMs, log: opts.log });
    this.main.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => void this.serveUpgrade(req, socket, head));
    this.front = protocolSniffingServer(this.main, () => (this.h2 ??= this.createHttp2Server()));
    this.admin = sharedPort ? undefined : createServer((req, res) => void this.serveAdmin(req, res));
  }

  get function(): ActiveFunction | undefined {
    return this.active;
  }

  get isDraining(): boolean {
    return this.draining;
  }

  get isReady(): boolean {
    return !this.draining && (this.active !== undefined || (this.opts.readyWithoutFunction === true && !this.spent));
  }

  /** No function will ever come (its specialize nonce is used): /readyz answers 503 `spent`. */
  markSpent(): void {
    this.spent = true;
  }

  /** Installs the function that requests go to (at start in deploy mode, at specialize in pool mode). */
  activate(fn: ActiveFunction): void {
    this.active = fn;
  }

  /** Back to no function, with fresh stats: the warm-up request (pool mode) never counts. */
  forgetWarmUp(): void {
    this.active = undefined;
    this.meter = new ConcurrencyMeter(this.opts.now);
    this.inFlightMeter = new ConcurrencyMeter(this.opts.now);
  }

  async listen(): Promise<{ url: string; adminUrl?: string; port: number; adminPort?: number }> {
    const listenOn = (server: NetServer, port: number) =>
      new Promise<number>((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, this.opts.host, () => {
          server.off('error', reject);
          resolve((server.address() as AddressInfo).port);
        });
      });
    const port = await listenOn(this.front, this.opts.port);
    const adminPort = this.admin ? await listenOn(this.admin, this.opts.adminPort!) : undefined;
    const host = this.opts.host.includes(':') ? `[${this.opts.host}]` : this.opts.host;
    return {
      url: `http://${host}:${port}`,
      adminUrl: adminPort === undefined ? undefined : `http://${host}:${adminPort}`,
      port,
      adminPort,
    };
  }

  private createHttp2Server(): Http2Server {
    const http2 = process.getBuiltinModule('node:http2');
    // No request listener: node would then build its compatibility objects for every stream, and they
    // consume a gRPC stream's body and send their own trailers. They are built here for fetch-style requests only.
    const h2 = http2.createServer({ settings: { maxConcurrentStreams: 1000, enablePush: false } });
    h2.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, _flags: number, rawHeaders: string[]) => {
      const contentType = headers['content-type'];
      if (typeof contentType === 'string' && /^application\/grpc(?:[+;]|$)/i.test(contentType)) {
        void this.serveGrpc(stream, headers);
        return;
      }
      const req = new http2.Http2ServerRequest(stream, headers, {}, rawHeaders);
      const res = new http2.Http2ServerResponse(stream);
      if (headers.expect === '100-continue') res.writeContinue();
      // The compatibility objects have IncomingMessage's and ServerResponse's shape for what these use.
      const path = urlPath(req.url);
      if (this.opts.adminPort === undefined && isRuntimePath(path)) void this.serveAdmin(req as unknown as IncomingMessage, res as unknown as ServerResponse);
      else void this.serveFunction(req as unknown as IncomingMessage, res as unknown as ServerResponse, true);
    });
    h2.on('session', (session: Http2Session) => {
      this.h2Sessions.add(session);
      session.on('error', ignore);
      session.once('close', () => this.h2Sessions.delete(session));
    });
    h2.on('sessionError', ignore);
    return h2;
  }

  /**
   * Stops accepting (readyz answers 503, new requests 503 `draining` unless the router says it
   * cannot send them elsewhere, ROUTER_CANNOT_RESEND_HEADER), sends every open
   * WebSocket a close frame (1001 going away), waits for in-flight and queued requests and
   * for the sockets to close, for at most `timeoutMs`, then closes every connection.
   * Resolves true when everything finished in time.
   */
  async drain(timeoutMs: number): Promise<boolean> {
    this.draining = true;
    this.front.close();
    this.main.close();
    this.main.closeIdleConnections();
    // Node keeps a connection that was busy when the server closed open for the next request,
    // which a draining worker could only refuse: the answers still to come say Connection: close,
    // and a connection whose answer already said keep-alive is closed once that answer is out.
    for (const res of this.openResponses) {
      if (!res.headersSent) res.shouldKeepAlive = false;
      else res.once('finish', () => setImmediate(() => this.main.closeIdleConnections()));
    }
    // GOAWAY: open streams finish, new ones go elsewhere.
    for (const s of this.h2Sessions) s.close();
    this.webSockets.closeAll(CLOSE_GOING_AWAY, 'worker draining');
    const drained =
      this.pending === 0 ||
      (await new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => resolve(false), timeoutMs);
        this.idleWaiters.push(() => {
          clearTimeout(timer);
          resolve(true);
        });
      }));
    // Upgraded sockets are no longer node's connections: closeAllConnections does not see them.
    this.webSockets.terminateAll();
    this.main.closeAllConnections();
    for (const s of this.h2Sessions) s.destroy();
    if (this.admin) {
      this.admin.close();
      this.admin.closeAllConnections();
    }
    return drained;
  }

  stats() {
    const fn = this.active;
    const w = this.meter.lastWindow();
    const f = this.inFlightMeter.lastWindow();
    return {
      namespace: fn?.namespace ?? null,
      function: fn?.function ?? null,
      revision: fn?.revision ?? null,
      containerConcurrency: fn?.breaker.limit ?? null,
      windowSeconds: this.meter.windowMs / 1000,
      window: {
        start: new Date(w.start).toISOString(),
        end: new Date(w.end).toISOString(),
        averageConcurrency: w.averageConcurrency,
        averageInFlight: f.averageConcurrency,
        requestCount: w.requestCount,
      },
      // An open WebSocket is one of inFlight for as long as it is open.
      current: { inFlight: fn?.breaker.inFlight ?? 0, queued: fn?.breaker.queued ?? 0, webSockets: this.webSockets.size },
      totalRequests: this.meter.totalRequests,
      ready: this.isReady,
      draining: this.draining,
    };
  }

  private async serveFunction(req: IncomingMessage, res: ServerResponse, http2 = false): Promise<void> {
    // HTTP/2 has no Connection header (RFC 9113 §8.2.2): a draining worker's GOAWAY says it.
    const close: Record<string, string> = http2 ? {} : { connection: 'close' };
    // A request the router cannot send elsewhere (its body streams through) runs here even while
    // draining: refusing it would reach the client as a 503. The drain waits for it too.
    if (this.draining && req.headers[ROUTER_CANNOT_RESEND_HEADER] !== '1') {
      // The header tells the router this request did not run here: it sends it to another worker.
      return sendJson(res, 503, { error: 'worker is draining; send the request to another worker', code: 'draining' }, { ...close, [WORKER_DRAINING_HEADER]: '1' });
    }
    const fn = this.active;
    if (!fn) {
      return sendJson(res, 503, { error: 'no function loaded yet: this pool worker is waiting for POST /v1/specialize', code: 'not_specialized' });
    }
    const declared = Number(req.headers['content-length'] ?? 0);
    if (declared > this.opts.maxRequestBytes) {
      if (!http2) refuseRestOfBody(req, res);
      return sendJson(res, 413, { error: `request body of ${declared} bytes exceeds the ${this.opts.maxRequestBytes}-byte limit`, code: 'payload_too_large' }, close);
    }

    this.pending++;
    this.meter.arrive();
    if (!http2) {
      this.openResponses.add(res);
      if (this.draining) res.shouldKeepAlive = false;
    }
    const { traced, ctx } = this.invocation(fn, req.method ?? 'GET', req.headers);
    const ac = new AbortController();
    let headSent = false;
    let timedOut = false;
    const onClose = () => {
      if (!res.writableFinished) ac.abort(new Error('client closed the connection'));
    };
    res.on('close', onClose);
    const timer =
      fn.timeoutMs > 0
        ? setTimeout(() => {
            if (headSent) return;
            timedOut = true;
            ac.abort(new Error('timeout'));
            // Closing the connection: the handler may still be reading this request's body.
            sendJson(res, 504, { error: `no response within the function's timeout (${fn.timeoutMs / 1000} s)`, code: 'timeout' }, close);
          }, fn.timeoutMs)
        : undefined;
    let release: Release | undefined;
    try {
      try {
        release = await fn.breaker.acquire(ac.signal);
      } catch (err) {
        if (err instanceof BreakerError && err.code === 'queue_full') sendJson(res, 503, { error: err.message, code: 'queue_full' });
        return;
      }
      if (ac.signal.aborted) return;
      this.inFlightMeter.arrive();
      try {
        await this.invoke(fn, ctx, req, res, http2, ac.signal, () => timedOut, () => {
          headSent = true;
          clearTimeout(timer);
        });
      } finally {
        this.inFlightMeter.depart();
      }
    } finally {
      clearTimeout(timer);
      // The slot is held until the handler has settled, even after a 504: it protects the process.
      release?.();
      discardRestOfBody(req, res, this.opts.maxRequestBytes);
      res.off('close', onClose);
      traced.end(res.headersSent ? res.statusCode : 499);
      this.meter.depart();
      this.openResponses.delete(res);
      if (--this.pending === 0) this.idleWaiters.splice(0).forEach((w) => w());
    }
  }

  /** The span and the ctx of one invocation (an HTTP request or a WebSocket connection). */
  private invocation(fn: ActiveFunction, method: string, headers: IncomingHttpHeaders): { traced: InvocationTrace; ctx: FunctionContext } {
    const traced = new InvocationTrace(this.opts.tracer, {
      method,
      namespace: fn.namespace,
      function: fn.function,
      revision: fn.revision,
      keyspace: fn.keyspace,
      traceparent: headerValue(headers.traceparent),
      tracestate: headerValue(headers.tracestate),
    });
    const base: FunctionContext =
      traced.state === undefined ? fn.ctx : { ...fn.ctx, trace: traced.trace, state: fn.ctx.state?.withTrace(traced.state) };
    // The router marks the first request of a sticky key that moved to this worker: ctx.state
    // claims a new fence before each key's next write (docs/state.md "Fencing").
    const moved: FunctionContext = headers[KEY_MOVED_HEADER] === '1' && base.state ? { ...base, state: base.state.withKeyMoved() } : base;
    const invocationId = headers[INVOCATION_ID_HEADER_LOWER];
    const ctx = invocationId === undefined ? moved : bindInvocation(moved, headerValue(invocationId), fn.timeoutMs);
    return { traced, ctx };
  }

  /**
   * A gRPC call (HTTP/2, content-type application/grpc*): one request for the breaker, the
   * meters and the drain while its stream is open, exactly as an HTTP request. Over the limit it
   * waits in the same FIFO queue. Refusals are trailers-only statuses: 14 UNAVAILABLE (draining,
   * no function), 12 UNIMPLEMENTED (no such method), 8 RESOURCE_EXHAUSTED (queue full),
   * 4 DEADLINE_EXCEEDED (grpc-timeout, or no slot within the function's timeout).
   */
  private async serveGrpc(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    stream.on('error', ignore);
    const path = urlPath(headerValue(headers[':path']));
    if (this.draining) return refuseGrpc(stream, GrpcStatus.UNAVAILABLE, 'worker is draining; retry on another worker');
    const fn = this.active;
    if (!fn) return refuseGrpc(stream, GrpcStatus.UNAVAILABLE, 'no function loaded yet: this pool worker is waiting for POST /v1/specialize');
    const name = `${fn.namespace}/${fn.function}`;
    const method = fn.grpc?.get(path);
    if (!method) {
      const served = fn.grpc ? [...fn.grpc.keys()].join(', ') : '';
      return refuseGrpc(stream, GrpcStatus.UNIMPLEMENTED, fn.grpc ? `function ${name} has no gRPC method ${path} (it serves ${served})` : `function ${name} serves no gRPC: its module has no grpc export (docs/functions.md "gRPC functions")`);
    }
    this.pending++;
    this.meter.arrive();
    const { traced, ctx } = this.invocation(fn, 'POST', headers);
    const ac = new AbortController();
    const abort = (grpcStatus: GrpcOutcome) => {
      if (!ac.signal.aborted) ac.abort({ grpcStatus, message: grpcStatus.message });
    };
    const onClose = () => abort({ code: GrpcStatus.CANCELLED, message: 'the client cancelled the call' });
    stream.once('close', onClose);
    const deadlineMs = parseGrpcTimeout(headerValue(headers['grpc-timeout']));
    const deadline = deadlineMs === undefined ? undefined : Date.now() + deadlineMs;
    const deadlineTimer = deadlineMs === undefined ? undefined : setTimeout(() => abort({ code: GrpcStatus.DEADLINE_EXCEEDED, message: `the call's deadline (grpc-timeout ${deadlineMs} ms) passed` }), deadlineMs);
    const queueTimer =
      fn.timeoutMs > 0 ? setTimeout(() => abort({ code: GrpcStatus.DEADLINE_EXCEEDED, message: `no slot within the function's timeout (${fn.timeoutMs / 1000} s)` }), fn.timeoutMs) : undefined;
    let release: Release | undefined;
    let outcome: GrpcOutcome = { code: GrpcStatus.CANCELLED, message: '' };
    try {
      try {
        release = await fn.breaker.acquire(ac.signal);
      } catch (err) {
        if (err instanceof BreakerError && err.code === 'queue_full') {
          outcome = { code: GrpcStatus.RESOURCE_EXHAUSTED, message: err.message };
        } else {
          outcome = (ac.signal.reason as { grpcStatus?: GrpcOutcome } | undefined)?.grpcStatus ?? outcome;
        }
        refuseGrpc(stream, outcome.code, outcome.message);
        return;
      }
      clearTimeout(queueTimer);
      if (ac.signal.aborted) {
        outcome = (ac.signal.reason as { grpcStatus?: GrpcOutcome }).grpcStatus ?? outcome;
        refuseGrpc(stream, outcome.code, outcome.message);
        return;
      }
      this.inFlightMeter.arrive();
      try {
        outcome = await runGrpcCall({ stream, headers, path, method, ctx, signal: ac.signal, deadline, maxMessageBytes: this.opts.maxRequestBytes, log: fn.ctx.log });
      } finally {
        this.inFlightMeter.depart();
      }
    } finally {
      clearTimeout(queueTimer);
      clearTimeout(deadlineTimer);
      release?.();
      stream.off('close', onClose);
      traced.end(outcome.code === GrpcStatus.CANCELLED ? 499 : 200);
      this.meter.depart();
      if (--this.pending === 0) this.idleWaiters.splice(0).forEach((w) => w());
    }
  }

  /**
   * A WebSocket handshake: one request for the breaker, the meters and the drain, from its
   * arrival until the connection closes. Over the limit it waits in the same FIFO queue (and
   * gets the same 503 `queue_full` when that is full); `timeoutSeconds` bounds the time to the
   * 101 (queueing included: 504 `timeout`), never an open connection.
   */
  private async serveUpgrade(req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    socket.on('error', ignore);
    const fn = this.active;
    const refused = refuseHandshake({
      runtimePath: this.opts.adminPort === undefined && isRuntimePath(urlPath(req.url)),
      draining: this.draining,
      specialized: fn !== undefined,
      hasWebSocketHandler: fn?.websocket !== undefined,
      functionName: fn ? `${fn.namespace}/${fn.function}` : '',
      upgrade: req.headers.upgrade,
    });
    if (refused || !fn?.websocket) {
      if (refused) refuseUpgrade(socket, refused.status, { error: refused.error, code: refused.code });
      return;
    }
    const websocket = fn.websocket;
    this.pending++;
    this.meter.arrive();
    const { traced, ctx } = this.invocation(fn, req.method ?? 'GET', req.headers);
    const ac = new AbortController();
    // The Request's signal aborts when the connection closes, whether queued or open.
    const onClose = () => ac.abort(new Error('the connection closed'));
    socket.once('close', onClose);
    let status = 499;
    const timer =
      fn.timeoutMs > 0
        ? setTimeout(() => {
            status = 504;
            ac.abort(new Error('timeout'));
            refuseUpgrade(socket, 504, { error: `no slot for the WebSocket within the function's timeout (${fn.timeoutMs / 1000} s)`, code: 'timeout' });
          }, fn.timeoutMs)
        : undefined;
    let release: Release | undefined;
    try {
      try {
        release = await fn.breaker.acquire(ac.signal);
      } catch (err) {
        if (err instanceof BreakerError && err.code === 'queue_full') {
          status = 503;
          refuseUpgrade(socket, 503, { error: err.message, code: 'queue_full' });
        }
        return;
      }
      if (ac.signal.aborted) return;
      if (this.draining) {
        status = 503;
        refuseUpgrade(socket, 503, { error: 'worker is draining; send the request to another worker', code: 'draining' });
        return;
      }
      // The 101 goes out within handleUpgrade: the timeout has done its part.
      clearTimeout(timer);
      this.inFlightMeter.arrive();
      try {
        const request = toWebRequest(req, { signal: ac.signal, maxBytes: this.opts.maxRequestBytes });
        status = await this.webSockets.accept(req, socket, head, (ws) => websocket(ws, request, ctx), fn.ctx.log);
      } finally {
        this.inFlightMeter.depart();
      }
    } finally {
      clearTimeout(timer);
      release?.();
      socket.off('close', onClose);
      traced.end(status);
      this.meter.depart();
      if (--this.pending === 0) this.idleWaiters.splice(0).forEach((w) => w());
    }
  }

  private async invoke(
    fn: ActiveFunction,
    ctx: FunctionContext,
    req: IncomingMessage,
    res: ServerResponse,
    http2: boolean,
    signal: AbortSignal,
    timedOut: () => boolean,
    onHead: () => void,
  ): Promise<void> {
    const log = fn.ctx.log;
    let response: unknown;
    try {
      response = await fn.handler(toWebRequest(req, { signal, maxBytes: this.opts.maxRequestBytes }), ctx);
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof BodyTooLargeError || (err as { cause?: unknown })?.cause instanceof BodyTooLargeError) {
        if (http2) discardRestOfBody(req, res, this.opts.maxRequestBytes);
        else refuseRestOfBody(req, res);
        return sendJson(res, 413, { error: `request body exceeds the ${this.opts.maxRequestBytes}-byte limit`, code: 'payload_too_large' });
      }
      log.error('handler threw', { error: err instanceof Error ? (err.stack ?? err.message) : String(err) });
      return sendJson(res, 500, { error: 'the function threw an error; see the worker log', code: 'handler_error' });
    }
    if (!(response instanceof Response)) {
      if (timedOut() || signal.aborted) return;
      log.error('handler did not return a Response', { got: response === null ? 'null' : typeof response });
      return sendJson(res, 500, { error: 'the function returned something other than a Response', code: 'invalid_response' });
    }
    if (timedOut() || signal.aborted || res.headersSent) {
      await response.body?.cancel().catch(() => undefined);
      return;
    }
    onHead();
    try {
      await writeWebResponse(res, response, { head: req.method === 'HEAD', extraHeaders: this.draining && !http2 ? { connection: 'close' } : undefined, http2 });
    } catch (err) {
      log.warn('response body failed after the head was sent; connection cut', { error: (err as Error).message });
    }
  }

  /** The runtime's own routes, on the admin port or reserved on the function's port (isRuntimePath). */
  private async serveAdmin(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      await this.adminRoutes(req, res);
    } catch (err) {
      this.opts.log.error('runtime route failed', { route: `${req.method ?? 'GET'} ${urlPath(req.url)}`, error: (err as Error).message });
      return sendJson(res, 500, { error: 'internal error', code: 'internal' });
    }
  }

  private routeTable(): RouteTable {
    return routes(
      [
        { method: 'GET', path: '/healthz', handler: (_req, res) => sendJson(res, 200, { status: 'ok' }) },
        {
          method: 'GET',
          path: '/readyz',
          handler: (_req, res) =>
            this.isReady
              ? sendJson(res, 200, { status: 'ready', specialized: this.active !== undefined })
              : sendJson(res, 503, { status: this.draining ? 'draining' : this.spent ? 'spent' : 'loading' }),
        },
        { method: 'GET', path: '/v1/stats', handler: (_req, res) => sendJson(res, 200, this.stats()) },
        { method: 'POST', path: '/v1/specialize', handler: (req, res) => this.specialize(req, res) },
      ],
      {
        notFound: (req, res) => sendJson(res, 404, { error: `no runtime route ${urlPath(req.url)} (runtime routes: /healthz, /readyz, /v1/stats, /v1/specialize)`, code: 'not_found' }),
        // No Allow header: the runtime never sent one.
        methodNotAllowed: (req, res) => sendJson(res, 405, { error: `${req.method ?? 'GET'} is not allowed on ${urlPath(req.url)}`, code: 'method_not_allowed' }),
      },
    );
  }

  private async specialize(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (!this.opts.specialize) return sendJson(res, 409, { error: 'this worker runs in deploy mode; only pool workers can be specialized', code: 'not_pool_worker' });
    if (this.draining) return sendJson(res, 503, { error: 'worker is draining', code: 'draining' });
    const refused = this.opts.admitSpecialize?.(req.headers.authorization);
    if (refused) {
      discardRestOfBody(req, res, MAX_ADMIN_BODY_BYTES);
      return sendJson(res, refused.status, refused.body, refused.status === 401 ? { 'www-authenticate': 'Bearer' } : {});
    }
    const body = await readJson(req, MAX_ADMIN_BODY_BYTES);
    if (!body.ok) return sendJson(res, body.status, { error: body.error, code: body.code });
    const answer = await this.opts.specialize(body.value);
    return sendJson(res, answer.status, answer.body);
  }
}

function ignore(): void {
  // 'close' follows a socket error and does the cleanup.
}

/** A handshake the worker does not take: a JSON answer on the raw socket, then close (as sendJson does for HTTP). */
function refuseUpgrade(socket: Socket, status: number, body: { error: string; code: string }): void {
  if (socket.destroyed || !socket.writable) return;
  const json = JSON.stringify(body);
  socket.write(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(json)}\r\nconnection: close\r\n\r\n`, 'latin1');
  socket.end(json, 'utf8');
  socket.destroySoon();
}

/** node joins a repeated header into one string; the array form (set-cookie only) is handled for the type's sake. */
function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}

/** The admin routes' body, or the refusal to answer with (runtime error codes). */
async function readJson(
  req: IncomingMessage,
  maxBytes: number,
): Promise<{ ok: true; value: unknown } | { ok: false; error: string; code: string; status: number }> {
  try {
    return { ok: true, value: await readJsonBody(req, { limit: maxBytes }) };
  } catch (err) {
    if (!(err instanceof JsonBodyError)) throw err;
    return { ok: false, error: err.message, code: err.problem === 'too_large' ? 'payload_too_large' : 'bad_request', status: err.status };
  }
}
