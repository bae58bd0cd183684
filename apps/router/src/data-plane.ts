/**
 * The request path: resolve function → pick revision (tag, sticky hash, weight) → Admit →
 * proxy, or wait in the activator queue. One Exchange object per request carries everything
 * (it is also the undici dispatch handler and the queue waiter) to keep allocations low.
 */
import { KEY_MOVED_HEADER, ROUTER_CANNOT_RESEND_HEADER, WORKER_DRAINING_HEADER } from '@orrery/sdk';
import { backoffDelay, INVOCATION_ID_HEADER } from '@orrery/spec';
import { admit, type Admission } from './admit/admit.ts';
import type { Endpoint } from './admit/endpoint.ts';
import type { EndpointIndex } from './admit/endpoint-index.ts';
import { fnv64Init, fnv64Update } from './admit/fnv1a64.ts';
import { hrwKeyStateOfKeyHash } from './admit/hrw.ts';
import type { ActivatorModes } from './activator/activator-modes.ts';
import type { AdmissionWaiter, RevisionQueues } from './activator/revision-queues.ts';
import type { WaitingQueue } from './activator/waiting-queue.ts';
import type { Socket } from 'node:net';
import type { IngressRequest, IngressResponse, RequestBody, ResponseListener, TunnelClosed } from '@orrery/raw-http';
import { http2UpstreamHeaders } from './http2/http2-upstream-head.ts';
import { STREAM_REFUSED } from './http2/http2-upstream.ts';
import { appendForwardedHeaders, plainAddress } from './proxy/forwarded-headers.ts';
import { findHost, scanRequestHead, type RequestHead } from './proxy/request-head.ts';
import type { TrustedProxies } from './proxy/trusted-proxies.ts';
import { UpstreamError, type UpstreamHandler } from './proxy/http1-upstream.ts';
import { refusedDialAttempts } from './proxy/refused-dial-budget.ts';
import { mayReplayElsewhere, mayRetryElsewhere, type UpstreamLeg } from './proxy/idempotent-retry.ts';
import { HELD_BODY_LIMIT, HeldRequestBody, heldBodyFits } from './proxy/held-request-body.ts';
import { mintInvocationId } from './proxy/mint-invocation-id.ts';
import type { UpstreamPools } from './proxy/upstream-pools.ts';
import type { FunctionRoute, RevisionRoute, RouteTable } from './routing/route-table.ts';
import { cookieValue, queryValue } from './routing/sticky-key.ts';
import { pickSticky, pickWeighted } from './routing/traffic-pick.ts';
import { parseIngressTarget } from './server/ingress-target.ts';
import { domainTarget, matchDomain } from './routing/domain-routes.ts';
import { httpsLocation, needsHttpsRedirect } from './routing/https-redirect.ts';
import type { QuarantineTable, StickyOwnerRecorder } from './shared-tables.ts';
import type { FunctionStats, RevisionStats, RouterStats } from './stats/router-stats.ts';
import type { StickyHotKeys } from './hot-keys/sticky-hot-keys.ts';
import type { Tracer } from '@orrery/tracing';
import { RequestTrace } from './tracing/request-trace.ts';
// The module's binding: Node 20's globalThis.performance is an accessor, a getter call on every use.
import { performance } from 'node:perf_hooks';

export interface DataPlaneOptions {
  index: EndpointIndex;
  quarantine: QuarantineTable;
  owners: StickyOwnerRecorder;
  stats: RouterStats;
  pools: UpstreamPools;
  /** The activator queues, where requests no endpoint can admit now wait. */
  queues: RevisionQueues;
  /** ".example.com" for host-based routing, or undefined. */
  domainSuffix: string | undefined;
  quarantineMs: number;
  /** Request body limit in bytes (0 = none): 413 body_too_large. */
  maxBodyBytes: number;
  /** Extra attempts after dial errors. */
  dialRetries: number;
  /** `--trusted-proxies`: peers whose forwarding headers are kept and appended to; undefined = the router is the edge (overwrite them). */
  trustedProxies?: TrustedProxies;
  /** Where the activator stands per revision (the autoscaler's answer, targetBurstCapacity); absent = always in the path. */
  activator?: ActivatorModes;
  /** Called when a request starts waiting (the autoscaler poke). */
  poke: (rev: RevisionRoute, queueLength: number, inflight: number) => void;
  log: (message: string) => void;
  /** Set when tracing is on (`--otlp-endpoint`): each proxied request gets spans. Off, the client's traceparent passes through unchanged. */
  tracer?: Tracer;
  /** Hot sticky keys per function (`/v1/hot-keys`); absent = not tracked. */
  hotKeys?: StickyHotKeys;
}

const encoder = new TextEncoder();

function sendError(res: IngressResponse, status: number, code: string, message: string): void {
  if (res.headersSent || res.destroyed) {
    res.destroy();
    return;
  }
  if (res.answerError !== undefined) {
    res.answerError(status, code, message);
    return;
  }
  const body = JSON.stringify({ error: message, code });
  res.writeHead(status, undefined, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))]);
  res.end(body);
}

/** 308 to HTTPS (routing/https-redirect.ts): method and body kept by the client, no body of ours. */
function sendRedirect(res: IngressResponse, location: string): void {
  res.writeHead(308, undefined, ['location', location, 'content-length', '0']);
  res.end();
}

function isDialRefused(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH';
}

function isDialTimeout(err: unknown): boolean {
  return (err as { code?: string }).code === 'ORRERY_CONNECT_TIMEOUT';
}

/** The revision an untagged request goes to: its sticky key's, else one drawn by the traffic weights. */
function pickUntagged(fn: FunctionRoute, keyHash: Uint32Array | undefined): RevisionRoute | undefined {
  return keyHash ? pickSticky(fn, keyHash[0]!, keyHash[1]!) : pickWeighted(fn, Math.random());
}

/** The revision is one its function's traffic can pick (weighted or tagged). */
function servesRevision(fn: FunctionRoute, revKey: string): boolean {
  for (const w of fn.weighted) if (w.route.key === revKey) return true;
  for (const r of fn.tags.values()) if (r.key === revKey) return true;
  return false;
}

/** The error code of a worker's draining refusal, turned into a retry by onError. */
const WORKER_DRAINING = 'ORRERY_WORKER_DRAINING';

function isDrainingRefusal(headers: string[]): boolean {
  for (let i = 0; i < headers.length; i += 2) if (headers[i]!.toLowerCase() === WORKER_DRAINING_HEADER) return true;
  return false;
}

/** The request has a body to send (Content-Length other than 0, or chunked). */
function hasRequestBody(h: RequestHead): boolean {
  return h.contentLength !== undefined ? h.contentLength !== '0' : h.chunked;
}

function upstreamLeg(req: IngressRequest): UpstreamLeg {
  return req.upgrade !== undefined ? 'websocket' : req.http2?.grpc === true ? 'grpc' : 'http1';
}

function isUpstreamTimeout(err: unknown): boolean {
  const code = (err as { code?: string }).code;
  return code === 'ORRERY_HEADERS_TIMEOUT' || code === 'ORRERY_BODY_TIMEOUT';
}

export class DataPlane {
  routes: RouteTable;
  readonly queues: RevisionQueues;
  readonly quarantineCheck: (address: string) => boolean;
  dialErrors = 0;
  /** Requests sent to another worker after their worker failed them mid-request (idempotent ones, any it never read, replays) or refused them draining. */
  upstreamRetries = 0;
  /** Of those, the ones only `onWorkerLoss: replay` sent again: their worker may have run them (idempotent-retry.ts mayReplayElsewhere). */
  upstreamReplays = 0;
  /** The port HTTP → HTTPS redirects name (routing/https-redirect.ts): `--tls-redirect-port`, else the bound TLS port. */
  httpsPort = 443;

  constructor(
    readonly opts: DataPlaneOptions,
    routes: RouteTable,
  ) {
    this.routes = routes;
    this.queues = opts.queues;
    const q = opts.quarantine;
    this.quarantineCheck = (address) => q.isQuarantined(address);
  }

  /**
   * A new route table. Requests waiting for a revision that no longer serves (traffic moved off
   * it while they waited for a worker, e.g. during a rollout) go to the revision the function's
   * traffic picks now, instead of waiting for a worker the retired revision will never get.
   */
  setRoutes(routes: RouteTable): void {
    this.routes = routes;
    for (const q of [...this.queues.withWaiters()]) for (const w of q.waiting()) if (w instanceof Exchange) w.rerouteIfRetired(routes);
  }

  /** One request from either ingress (ingress/raw-ingress-server.ts, ingress/node-http-ingress.ts). */
  readonly handle = (req: IngressRequest, res: IngressResponse): void => this.route(req, res, false);
  /** One request that arrived on the TLS port (tls/tls-listener.ts): it serves the custom domains only. */
  readonly handleTls = (req: IngressRequest, res: IngressResponse): void => this.route(req, res, true);

  private route(req: IngressRequest, res: IngressResponse, tls: boolean): void {
    const t0 = performance.now();
    const domain = this.opts.domainSuffix;
    // Custom domains first: an exact Host match (spec.domains, docs/domains.md); then path and --domain rules.
    const custom = this.routes.hosts.size > 0 ? matchDomain(this.routes.hosts, findHost(req.rawHeaders), domain) : undefined;
    if (tls && !custom) {
      sendError(res, 421, 'misdirected_request', 'the TLS port serves the hosts of spec.domains only: send the Host header of the name you connected to');
      return;
    }
    const target = custom ? domainTarget(custom, req.url) : parseIngressTarget(req.url, domain ? findHost(req.rawHeaders) : undefined, domain);
    if (!target) {
      sendError(res, 404, 'not_found', 'route requests as /{namespace}/{function}/... or by host <function>.<namespace>.<domain>');
      return;
    }
    const fn = this.routes.get(target.namespace, target.name);
    if (!fn) {
      sendError(res, 404, 'function_not_found', `no function ${target.namespace}/${target.name}; check the name or apply the Function first`);
      return;
    }
    const fnStats = this.opts.stats.fn(fn.key, fn.namespace, fn.name);
    fnStats.requests++;
    const head = scanRequestHead(req.rawHeaders, fn.sticky?.source === 'header' ? fn.sticky.name : undefined);
    if (custom?.redirectToHTTPS && needsHttpsRedirect(true, tls, this.opts.trustedProxies?.contains(plainAddress(req.remoteAddress)) === true, head.forwardedProto)) {
      sendRedirect(res, httpsLocation(custom.host, req.url, this.httpsPort));
      return;
    }
    const limit = this.opts.maxBodyBytes;
    if (limit > 0 && head.contentLength !== undefined && Number(head.contentLength) > limit) {
      sendError(res, 413, 'body_too_large', `request bodies are limited to ${limit} bytes; send less or raise --max-body-bytes`);
      return;
    }

    // Sticky key: hashed once; its FNV picks the revision and names the key in the owner table, its `‖0x00` state feeds HRW.
    let keyHash: Uint32Array | undefined;
    let keyState: Uint32Array | undefined;
    let key: string | undefined;
    if (fn.sticky) {
      const src = fn.sticky.source;
      key = src === 'header' ? head.sticky : src === 'cookie' ? cookieValue(req.rawHeaders, fn.sticky.name) : queryValue(target.upstreamPath, fn.sticky.name);
      if (key === undefined || key === '') {
        fnStats.stickyKeyMissing++;
      } else {
        fnStats.stickyRequests++;
        const bytes = encoder.encode(key);
        keyHash = fnv64Update(fnv64Init(), bytes);
        keyState = hrwKeyStateOfKeyHash(keyHash[0]!, keyHash[1]!);
      }
    }

    let rev: RevisionRoute | undefined;
    const tag = head.tag;
    if (tag !== undefined && tag !== '') {
      rev = fn.tags.get(tag);
      if (!rev) {
        sendError(res, 404, 'unknown_tag', `function ${fn.key} has no traffic target tagged ${JSON.stringify(tag)}`);
        return;
      }
    } else {
      rev = pickUntagged(fn, keyHash);
    }
    if (!rev) {
      sendError(res, 503, 'no_revision', `function ${fn.key} has no revision to route to yet`);
      return;
    }
    // The one check tracing costs when it is off.
    const tracer = this.opts.tracer;
    const trace =
      tracer === undefined
        ? undefined
        : new RequestTrace(tracer, { method: req.method, namespace: fn.namespace, function: fn.name, revision: rev.revision, traceparent: head.traceparent, tracestate: head.tracestate, keyHash, t0 });
    const ex = new Exchange(this, req, res, head, fn, fnStats, rev, this.opts.stats.revision(rev.key, rev.namespace, rev.function, rev.revision), keyHash, keyState, target.upstreamPath, t0, trace, tls);
    ex.start();
    // Counted once per request, after its first admission attempt: did it get the key's owner?
    // (Waiting for a first worker is a cold start, not a busy owner.)
    if (keyHash && this.opts.hotKeys) this.opts.hotKeys.observe(fn.namespace, fn.name, key!, keyHash[0]!, keyHash[1]!, !ex.gotOwner && this.opts.index.ready(rev.key).length > 0);
  }

}

/* Shared callbacks: no per-request closures (each would also cost a keepNames call under tsx). */
function onQueueTimeout(ex: Exchange): void {
  ex.onQueueTimeout();
}
function onRetry(ex: Exchange): void {
  ex.retry();
}

/**
 * One request from arrival to the end of its response; also the upstream handler, the queue
 * waiter and the response listener. A WebSocket handshake (`req.upgrade`) is one request too:
 * routed and admitted alike, it holds its slot — in flight for Admit, the autoscaler's stats and
 * the containerConcurrency cap — from the 101 until the spliced connection closes.
 */
class Exchange implements UpstreamHandler, ResponseListener, AdmissionWaiter, TunnelClosed {
  done = false;
  private admission: Admission | undefined;
  private avoid: Endpoint | undefined;
  private attempts = 0;
  /**
   * Of the attempts, those after a connection lost with the request on it (the worker may have
   * run it): these are what `--dial-retries` caps for a retry or replay after a loss. Dial errors,
   * draining refusals and resets of a request the worker never read ran nothing and do not count
   * here (every attempt stays within the refused-dial budget), so a rollout's refused dials cannot
   * use up a request's chance to be retried or replayed after its worker is lost.
   */
  private lostAttempts = 0;
  private finished = false;
  private queued = false;
  /** X-Orrery-Key-Moved is on the forwarded headers (a retry to a third endpoint adds no second one). */
  private keyMovedSent = false;
  private timer: NodeJS.Timeout | undefined;
  private abortUpstream: ((err?: Error) => void) | undefined;
  private resumeUpstream: (() => void) | undefined;
  private tDispatch = 0;
  private ownOverhead = 0;
  private status = 0;
  /** The worker answered 101: the duration histogram got the handshake's time already. */
  private switched = false;
  /** onWorkerLoss: replay — the Orrery-Invocation-Id every attempt of this request carries. */
  private invocationId: string | undefined;
  /** A small body kept while the first attempt streams it: for a retry after a draining refusal, or a replay (see dispatch). */
  private heldBody: HeldRequestBody | undefined;

  constructor(
    private readonly plane: DataPlane,
    private readonly req: IngressRequest,
    private readonly res: IngressResponse,
    private readonly head: RequestHead,
    private readonly fn: FunctionRoute,
    private readonly fnStats: FunctionStats,
    private rev: RevisionRoute,
    private revStats: RevisionStats,
    private readonly keyHash: Uint32Array | undefined,
    private readonly keyState: Uint32Array | undefined,
    private readonly upstreamPath: string,
    private readonly t0: number,
    private readonly trace: RequestTrace | undefined,
    /** Arrived on the TLS port: forwarded as proto https. */
    private readonly tls: boolean,
  ) {}

  /** Waiting for a revision its function's traffic no longer names: re-picked as on arrival (tag, sticky key or weights). */
  rerouteIfRetired(routes: RouteTable): void {
    if (!this.queued || this.finished) return;
    this.moveIfRetired(routes);
  }

  /** Joins the revision the function's traffic picks now when it no longer names `this.rev`; false when it still does. */
  private moveIfRetired(routes: RouteTable): boolean {
    const fn = routes.get(this.fn.namespace, this.fn.name);
    if (!fn || servesRevision(fn, this.rev.key)) return false;
    const tag = this.head.tag;
    const next = tag !== undefined && tag !== '' ? fn.tags.get(tag) : pickUntagged(fn, this.keyHash);
    if (!next || next.key === this.rev.key) return false;
    this.leaveQueue();
    const now = performance.now();
    this.revStats.meter.change(-1, now);
    this.rev = next;
    this.revStats = this.plane.opts.stats.revision(next.key, next.namespace, next.function, next.revision);
    this.avoid = undefined;
    this.joinRevision(now);
    return true;
  }

  /** Admitted to the sticky key's HRW owner (false while queued or when it spilled to another endpoint). */
  get gotOwner(): boolean {
    return this.admission?.hit === true;
  }

  start(): void {
    this.res.setListener(this);
    this.joinRevision(this.t0);
  }

  /** Counted as a request of `this.rev` from `at`, then admitted or queued (at arrival, or after a re-pick). */
  private joinRevision(at: number): void {
    const s = this.revStats;
    s.requestsTotal++;
    s.meter.requests++;
    s.meter.change(1, at);
    const q = this.plane.queues.get(this.rev.key);
    // FIFO: while others wait for this revision, a newcomer queues behind them.
    if (q && q.size > 0) this.enqueue(q);
    else if (!this.tryAdmit()) this.enqueue(this.plane.queues.of(this.rev.key));
  }

  /** Admit now if possible (also the queue's grant callback). */
  tryAdmit(): boolean {
    const plane = this.plane;
    const limit = plane.opts.activator ? plane.opts.activator.admitLimit(this.rev) : this.rev.containerConcurrency;
    const a = admit(plane.opts.index.ready(this.rev.key), limit, this.keyState, plane.quarantineCheck, this.avoid);
    plane.opts.stats.admitResults[a.result]!++;
    if (a.result !== 'admitted') return false;
    this.admission = a;
    if (this.queued) {
      this.queued = false;
      this.revStats.queued--;
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
    }
    this.revStats.inflight++;
    if (this.keyHash) {
      if (a.hit) this.fnStats.stickyHits++;
      // A teleport: this key (not merely its bucket) was last admitted to another endpoint.
      const moved = plane.opts.owners.record(this.fn.key, this.keyHash[0]!, this.keyHash[1]!, a.endpoint!.address, Date.now()) !== undefined;
      if (moved) {
        this.fnStats.teleports++;
        // The new owner's writes of this key must not race the old one's: it claims a fence.
        if (!this.keyMovedSent) {
          this.keyMovedSent = true;
          this.head.forward.push(KEY_MOVED_HEADER, '1');
        }
      }
      this.trace?.teleport(moved);
    }
    this.dispatch(a.endpoint!);
    return true;
  }

  private enqueue(q: WaitingQueue<AdmissionWaiter>): void {
    if (!q.push(this)) {
      this.finish(503, 'queue_full', `revision ${this.rev.revision} has ${q.size} requests waiting (the limit); retry later`);
      return;
    }
    this.queued = true;
    this.revStats.queued++;
    this.timer = setTimeout(onQueueTimeout, this.waitLimitMs(), this);
    this.plane.opts.poke(this.rev, q.size, this.revStats.inflight);
  }

  /** How long it may wait for a worker: the revision's timeout, or a gRPC client's shorter deadline. */
  private waitLimitMs(): number {
    const deadline = this.req.http2?.deadlineMs;
    return deadline !== undefined && deadline < this.rev.timeoutMs ? deadline : this.rev.timeoutMs;
  }

  onQueueTimeout(): void {
    this.timer = undefined;
    if (!this.queued) return;
    this.leaveQueue();
    const deadline = this.req.http2?.deadlineMs;
    if (deadline !== undefined && deadline < this.rev.timeoutMs) {
      this.finish(504, 'deadline_exceeded', `no endpoint of revision ${this.rev.revision} could take the call within its grpc-timeout of ${deadline} ms`);
      return;
    }
    this.finish(504, 'activation_timeout', `no endpoint of revision ${this.rev.revision} could take the request within ${this.rev.timeoutMs / 1000}s`);
  }

  private leaveQueue(): void {
    if (!this.queued) return;
    this.queued = false;
    this.revStats.queued--;
    this.plane.queues.get(this.rev.key)?.cancel(this);
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  onClientClose(): void {
    if (this.finished) return;
    // The client went away: stop waiting, or abort the upstream exchange (which releases the slot).
    if (this.queued) {
      this.leaveQueue();
      this.finish(499, undefined, undefined);
    } else if (this.abortUpstream) {
      this.abortUpstream(new Error('client closed the connection'));
    }
  }

  private dispatch(endpoint: Endpoint): void {
    const req = this.req;
    const h = this.head;
    // A retry reuses the list: the forwarding headers are appended once.
    if (this.attempts === 0) appendForwardedHeaders(h.forward, req.remoteAddress, h.host, h, this.plane.opts.trustedProxies, this.tls);
    // Each attempt is its own client span; its traceparent replaces the client's (or the last attempt's).
    this.trace?.upstream(endpoint.address, this.attempts, h.forward);
    const hasLength = h.contentLength !== undefined;
    const hasBody = hasRequestBody(h);
    this.tDispatch = performance.now();
    // The one check the common request pays for WebSockets (the raw ingress never sets it).
    if (req.upgrade !== undefined) {
      this.dispatchUpgrade(endpoint);
      return;
    }
    // gRPC needs HTTP/2 to the worker (trailers); other HTTP/2 requests take the HTTP/1.1 pool, which every runtime speaks.
    // :authority is the worker's address, as the pool's Host is; the client's Host went into X-Forwarded-Host.
    if (req.http2?.grpc === true) {
      // The worker gets what is left of the client's deadline, not the whole of it.
      const deadline = req.http2.deadlineMs;
      const remainingMs = deadline === undefined ? undefined : deadline - (this.tDispatch - this.t0);
      // The call's body (no length up front) is held up to HELD_BODY_LIMIT while it streams: a
      // worker that refuses the stream (REFUSED_STREAM, a draining 503) ran nothing, and another
      // one gets it whole — or, while the client is still sending, what came so far and then the
      // rest. A larger (client-streaming) body streams straight through.
      let body: RequestBody | null = req.body;
      let wholeBody: Buffer | undefined;
      if (req.body !== null) {
        const held = this.heldBody;
        if (held?.complete) {
          wholeBody = held.bytes();
          body = null;
        } else if (held) body = held;
        else if (!req.readableDidRead) body = this.heldBody = new HeldRequestBody(req.body, HELD_BODY_LIMIT);
      }
      this.plane.opts.pools.http2(endpoint.address).dispatch({ headers: http2UpstreamHeaders(req.method, this.upstreamPath, endpoint.address, h.forward, true, remainingMs), body, wholeBody, timeoutMs: this.rev.timeoutMs }, this);
      return;
    }
    const pool = this.plane.opts.pools.get(endpoint.address);
    // What onWorkerLoss: replay costs the other revisions. A request that began on a replay
    // revision stays one (its id) if a rollout re-picks its revision while it waits.
    if (this.invocationId === undefined && this.rev.replayOnWorkerLoss) {
      this.invocationId = mintInvocationId();
      h.forward.push(INVOCATION_ID_HEADER, this.invocationId);
    }
    // A body with a Content-Length of at most HELD_BODY_LIMIT streams to the first worker through
    // a HeldRequestBody, for every revision, until the worker's answer begins: when that worker
    // refuses it draining (it ran nothing) another worker gets it whole, in one write (or, while
    // the client is still sending, what came so far and then the rest) — and, for
    // onWorkerLoss: replay, a replay after the first worker was lost. Larger or chunked bodies
    // stream straight through and cannot go again once read — the worker is told so, and runs
    // such a request even when it is draining rather than refusing it (the refusal could only
    // reach the client as a 503). Bodiless requests skip all of it.
    let body: RequestBody | null = null;
    let wholeBody: Buffer | undefined;
    if (hasBody && req.body !== null) {
      const held = this.heldBody;
      if (held?.complete) wholeBody = held.bytes();
      // Not read yet: a dial or draining retry streams it again through the same holder.
      else if (held) body = held;
      else if (hasLength && !req.readableDidRead && heldBodyFits(h.contentLength)) body = this.heldBody = new HeldRequestBody(req.body);
      else {
        body = req.body;
        // Once: a retry reuses the header list (as the forwarding headers above).
        if (this.attempts === 0) h.forward.push(ROUTER_CANNOT_RESEND_HEADER, '1');
      }
    }
    pool.dispatch({ method: req.method, path: this.upstreamPath, headers: h.forward, body, wholeBody, bodyHasLength: hasLength, timeoutMs: this.rev.timeoutMs, maxBodyBytes: this.plane.opts.maxBodyBytes }, this, this.tDispatch);
  }

  /** Whatever of the body was read can still be sent whole: none was read, or all that arrived is held (HeldRequestBody.resendable). */
  private bodyResendable(): boolean {
    return !this.req.readableDidRead || this.heldBody?.resendable === true;
  }

  /** The handshake on a connection of its own; scanRequestHead dropped the client's hop-by-hop Connection and Upgrade, the router says its own. */
  private dispatchUpgrade(endpoint: Endpoint): void {
    const h = this.head;
    if (this.attempts === 0) h.forward.push('Connection', 'Upgrade', 'Upgrade', 'websocket');
    this.plane.opts.pools.get(endpoint.address).dispatchUpgrade(
      { method: this.req.method, path: this.upstreamPath, headers: h.forward, body: null, bodyHasLength: false, timeoutMs: this.rev.timeoutMs },
      this,
    );
  }

  onUpgrade(statusText: string, headers: string[], protocol: string | undefined, socket: Socket, head: Buffer): void {
    const tunnel = this.req.upgrade;
    this.abortUpstream = undefined;
    if (tunnel === undefined || protocol?.trim().toLowerCase() !== 'websocket') {
      socket.destroy();
      this.trace?.endUpstream(undefined, 'upstream_error');
      this.finish(502, 'upstream_error', `the worker switched to ${protocol === undefined ? 'no named protocol' : JSON.stringify(protocol)} instead of websocket`);
      return;
    }
    const tHeaders = performance.now();
    this.admission!.endpoint!.dialTimeoutStrikes = 0;
    this.status = 101;
    this.trace?.upstreamStatus(101);
    try {
      tunnel.splice(statusText, headers, socket, head, this);
    } catch (err) {
      socket.destroy();
      this.trace?.endUpstream(undefined, 'upstream_error');
      this.finish(this.res.destroyed ? 499 : 502, 'upstream_error', `the worker's 101 cannot be forwarded: ${(err as Error).message}`);
      return;
    }
    // The handshake's time is the request's duration; the open socket's lifetime is not a latency.
    this.switched = true;
    this.fnStats.duration.observe((tHeaders - this.t0) / 1000);
    this.ownOverhead = this.tDispatch - this.t0 + (performance.now() - tHeaders);
  }

  /** The spliced connection closed (either side): the slot is released now, exactly once. */
  onTunnelClosed(): void {
    this.trace?.endUpstream(undefined, undefined);
    this.finish(101, undefined, undefined);
  }

  onConnect(abort: (err?: Error) => void): void {
    this.abortUpstream = abort;
  }

  onHeaders(statusCode: number, headers: string[], resume: () => void, statusText: string): boolean {
    // A draining worker refused the request without running it: another worker takes it (onError).
    if (statusCode === 503 && isDrainingRefusal(headers)) {
      this.abortUpstream?.(new UpstreamError('the worker is draining', WORKER_DRAINING));
      return false;
    }
    const tHeaders = performance.now();
    this.admission!.endpoint!.dialTimeoutStrikes = 0;
    // The answer began: no replay any more, so a held body need not be kept.
    this.heldBody?.release();
    this.resumeUpstream = resume;
    this.status = statusCode;
    this.trace?.upstreamStatus(statusCode);
    try {
      this.res.writeHead(statusCode, statusText || undefined, headers);
    } catch {
      // A header node (or the raw ingress) will not send — e.g. a control character from the
      // worker: a 502 instead of a thrown exception inside the upstream socket's data handler.
      this.abortUpstream?.(new Error('its response head has a header name or value that cannot be forwarded'));
      return false;
    }
    this.ownOverhead = this.tDispatch - this.t0 + (performance.now() - tHeaders);
    return true;
  }

  onData(chunk: Buffer): boolean {
    return this.res.write(chunk);
  }

  onDrain(): void {
    this.resumeUpstream?.();
  }

  onComplete(trailers: string[] | null, lastChunk?: Buffer): void {
    if (trailers !== null) this.res.setTrailers?.(trailers);
    this.trace?.endUpstream(undefined, undefined);
    // Bookkeeping first, the client's write last: work the router does after a write delays the
    // client it just woke when both share a CPU (performance.md, "The router at 1 connection,
    // where the added latency goes"). The duration it records therefore ends before that write.
    this.finish(this.status, undefined, undefined);
    if (lastChunk) this.res.end(lastChunk);
    else this.res.end();
  }

  onError(err: Error): void {
    const endpoint = this.admission?.endpoint;
    this.abortUpstream = undefined;
    this.trace?.endUpstream(undefined, (err as { code?: string }).code ?? 'upstream_error');
    if (this.res.headersSent) {
      this.res.destroy(err);
      this.finish(this.status, undefined, undefined);
      return;
    }
    const refused = isDialRefused(err);
    const dialTimeout = isDialTimeout(err);
    if ((refused || dialTimeout) && endpoint) {
      const plane = this.plane;
      plane.dialErrors++;
      if (refused) {
        plane.opts.quarantine.quarantine(endpoint.address, Date.now() + plane.opts.quarantineMs);
      } else if (++endpoint.dialTimeoutStrikes >= 3) {
        endpoint.dialTimeoutStrikes = 0;
        plane.opts.quarantine.quarantine(endpoint.address, Date.now() + plane.opts.quarantineMs);
      }
      // A dial error: retried, with backoff, while the request body is still unread; a refused
      // one ran nothing and gets a larger budget (refused-dial-budget.ts).
      const budget = refused ? refusedDialAttempts(plane.opts.dialRetries) : plane.opts.dialRetries;
      if (this.attempts < budget && this.bodyResendable() && !this.res.destroyed) {
        this.retryElsewhere(endpoint, backoffDelay(this.attempts + 1, { initialMs: 5, maxMs: 200 }) * (0.5 + Math.random()));
        return;
      }
      this.finish(502, 'upstream_unreachable', `could not connect to a worker of revision ${this.rev.revision}: ${(err as { code?: string }).code ?? err.message}`);
      return;
    }
    if ((err as { code?: string }).code === 'ORRERY_BODY_TOO_LARGE') {
      this.finish(413, 'body_too_large', `request bodies are limited to ${this.plane.opts.maxBodyBytes} bytes; send less or raise --max-body-bytes`);
      return;
    }
    if ((err as { code?: string }).code === 'ORRERY_NOT_H2C') {
      this.finish(502, 'upstream_not_h2c', err.message);
      return;
    }
    if ((err as { code?: string }).code === WORKER_DRAINING || (err as { code?: string }).code === STREAM_REFUSED) {
      // Nothing ran (a draining refusal, or an HTTP/2 stream refused unprocessed — what a
      // draining worker's GOAWAY does to streams it had not taken): any method may go again, as
      // long as its body can still be sent. A draining
      // worker takes no new request before it exits, so it is quarantined like a refused dial and
      // the request goes to another worker — or, when every listed one is draining (a rollout
      // stopping the old Revision), waits in the activator queue for a new one — within the
      // refused-dial budget, not --dial-retries (which two draining workers in a row used up).
      if (endpoint) this.plane.opts.quarantine.quarantine(endpoint.address, Date.now() + this.plane.opts.quarantineMs);
      if (endpoint && this.attempts < refusedDialAttempts(this.plane.opts.dialRetries) && this.bodyResendable() && !this.res.destroyed) {
        this.plane.upstreamRetries++;
        this.retryElsewhere(endpoint, 0);
        return;
      }
      this.finish(503, 'draining', `the worker of revision ${this.rev.revision} is draining and the request could not go to another one; retry`);
      return;
    }
    if (isUpstreamTimeout(err)) {
      this.finish(504, 'upstream_timeout', `the worker did not answer within the revision's timeout of ${this.rev.timeoutMs / 1000}s`);
      return;
    }
    // The connection failed after the request went out (a worker killed or crashed mid-request):
    // an idempotent request, or one the worker provably never read, goes to another worker
    // (idempotent-retry.ts); others fail below.
    const neverRead = err instanceof UpstreamError && err.neverRead;
    // Every attempt so far stays bounded by the refused-dial budget; the losses by --dial-retries.
    const withinTotal = this.attempts < refusedDialAttempts(this.plane.opts.dialRetries);
    if (endpoint && !this.res.destroyed && withinTotal && mayRetryElsewhere({ method: this.req.method, errorCode: (err as { code?: string }).code, bodyRead: this.req.readableDidRead, headersSent: false, attempts: this.lostAttempts, maxAttempts: this.plane.opts.dialRetries, neverRead })) {
      this.plane.upstreamRetries++;
      // A reset of a request the worker never read ran nothing: not a loss (nor for moveIfRetired).
      if (!neverRead) this.lostAttempts++;
      this.retryElsewhere(endpoint, 0);
      return;
    }
    // Any other request its Function asked to replay: another worker runs it with the same
    // Orrery-Invocation-Id, so its ctx.state calls return what the first run's did.
    if (
      endpoint &&
      !this.res.destroyed &&
      withinTotal &&
      mayReplayElsewhere({
        replayOnWorkerLoss: this.rev.replayOnWorkerLoss,
        leg: upstreamLeg(this.req),
        errorCode: (err as { code?: string }).code,
        bodyHeld: !hasRequestBody(this.head) || this.heldBody?.resendable === true,
        headersSent: false,
        attempts: this.lostAttempts,
        maxAttempts: this.plane.opts.dialRetries,
      })
    ) {
      const plane = this.plane;
      plane.upstreamRetries++;
      plane.upstreamReplays++;
      this.lostAttempts++;
      plane.opts.log(`replaying ${this.req.method} invocation ${this.invocationId} of revision ${this.rev.key} on another worker: ${endpoint.address} was lost (${err.message})`);
      this.retryElsewhere(endpoint, 0);
      return;
    }
    if (!this.res.destroyed) {
      // Why no retry or replay took it, for the operator reading a 502 (and the soak's failure report).
      this.plane.opts.log(
        `${this.req.method} to revision ${this.rev.key} failed with 502 upstream_error after ${this.attempts + 1} attempt(s), ${this.lostAttempts} after a loss: ${err.message}` +
          ` (code ${(err as { code?: string }).code ?? 'none'}, never read ${neverRead}, body read ${this.req.readableDidRead}, body held ${this.heldBody?.complete === true}, replay ${this.rev.replayOnWorkerLoss})`,
      );
    }
    this.finish(this.res.destroyed ? 499 : 502, 'upstream_error', `the worker failed: ${err.message}`);
  }

  /** One more attempt after `delayMs`, on another endpoint than `failed` when there is one (retry()). */
  private retryElsewhere(failed: Endpoint, delayMs: number): void {
    this.attempts++;
    this.releaseSlot();
    this.avoid = failed;
    setTimeout(onRetry, delayMs, this);
  }

  retry(): void {
    if (this.finished || this.res.destroyed) {
      this.finish(499, undefined, undefined);
      return;
    }
    this.admission = undefined;
    // Traffic moved off the revision while the request was at its worker (a rollout: the worker
    // then refused it draining, or a dial was refused as it exited): it goes to the revision the
    // traffic picks now, as a queued waiter does (rerouteIfRetired), instead of waiting for a
    // worker the retired revision will never get. Only while no attempt can have run (no loss
    // so far): a replay must meet the code its first run ran.
    if (this.lostAttempts === 0 && this.moveIfRetired(this.plane.routes)) return;
    // No other worker can take it now (the one that refused was the last, e.g. it just died):
    // wait in the activator queue like a cold request — the autoscaler is poked and a new
    // worker is admitted in order — rather than failing with 502 (the Knative activator's way).
    if (!this.tryAdmit()) this.enqueue(this.plane.queues.of(this.rev.key));
  }

  private releaseSlot(): void {
    const a = this.admission;
    if (!a) return;
    this.admission = undefined;
    a.release();
    this.revStats.inflight--;
    // A slot freed: the first waiter of this revision may go now.
    this.plane.queues.drain(this.rev.key);
  }

  /** Ends the exchange exactly once: error body when `code` is set, slot release, stats. */
  private finish(status: number, code: string | undefined, message: string | undefined): void {
    if (this.finished) return;
    this.finished = true;
    if (code !== undefined) sendError(this.res, status, code, message ?? code);
    this.trace?.end(status, code);
    this.res.setListener(undefined);
    const now = performance.now();
    this.revStats.meter.change(-1, now);
    this.revStats.countCode(status);
    if (!this.switched) this.fnStats.duration.observe((now - this.t0) / 1000);
    if (this.ownOverhead > 0) this.plane.opts.stats.overhead.observe(this.ownOverhead / 1000);
    this.releaseSlot();
  }
}
