/**
 * The raw ingress: a `net.Server` whose connections are served by raw-connection.ts for the
 * common request, without node's HTTP server machinery (per request it allocated an
 * IncomingMessage and a ServerResponse, ran llhttp callbacks and wrote head and body apart —
 * about half of the router's CPU per request). A connection whose request the strict parser
 * does not take is handed to `fallback`, a node:http server that never listens itself: it
 * answers that request and every later one on the connection, exactly as before.
 */
import type { Server as HttpServer } from 'node:http';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { IngressHandler } from './ingress.ts';
import { RawConnection, type RawConnectionHost } from './raw-connection.ts';
import { MAX_HEAD_BYTES, type HandoverReason, type ParsedHead } from './request-head-parser.ts';
// The module's binding: Node 20's globalThis.performance is an accessor, a getter call on every use.
import { performance } from 'node:perf_hooks';

/** Takes the connections that open with the HTTP/2 preface (the router's h2c ingress). */
export interface Http2Acceptor {
  accept(socket: Socket, consumed: Buffer): void;
}

/**
 * Which parsed requests the raw ingress serves itself (true) and which it hands, with their
 * connection, to the fallback (false: node:http then serves that request and every later one on
 * the connection).
 */
export type RequestRoute = (head: ParsedHead) => boolean;

export interface RawIngressOptions {
  handle: IngressHandler;
  /** Absent: every request the strict parser takes. */
  route?: RequestRoute;
  /** Takes the connections handed over; must not be listening. */
  fallback: HttpServer;
  /** Takes the connections that open with the HTTP/2 preface (h2c prior knowledge); absent = node's fallback answers them. */
  http2?: Http2Acceptor;
  /** Idle time allowed between requests (node's keepAliveTimeout). */
  keepAliveTimeoutMs: number;
  /**
   * What `Keep-Alive: timeout=` announces (default keepAliveTimeoutMs). Shorter than the real
   * timeout, it lets a graceful close (`close(…, graceMs ≥ hint)`) shut idle connections that
   * hint-honouring clients (undici, Firefox) have stopped using, while proxies that ignore the
   * hint still find the connection open for the whole keepAliveTimeoutMs.
   */
  keepAliveHintMs?: number;
  /** Time allowed for a complete request head (node's headersTimeout). */
  headersTimeoutMs: number;
  /**
   * Time allowed for a request's whole body to arrive, counted from its head (node's
   * requestTimeout, which also counts the head); past it the connection is destroyed.
   * Absent: no limit (the router's upstream timeouts bound a proxied body).
   */
  bodyTimeoutMs?: number;
  /** Heads this large or larger go to node (default: node's 16 KiB). */
  maxHeadBytes?: number;
  /**
   * Listens and accepts instead of a plain TCP server: the TLS listener's (tls/tls-listener.ts),
   * whose decrypted sockets arrive on 'secureConnection' and are served exactly like plain ones.
   */
  server?: Server;
}

export class RawIngress implements RawConnectionHost {
  readonly server: Server;
  readonly handle: IngressHandler;
  readonly keepAliveTimeoutMs: number;
  readonly keepAliveHintMs: number;
  readonly headersTimeoutMs: number;
  readonly bodyTimeoutMs: number | undefined;
  readonly route: RequestRoute | undefined;
  readonly maxHeadBytes: number;
  /** Draining: every answer says `Connection: close`; new connections are still served. */
  closing = false;
  /** close() was called: not listening; idle connections close as `idleGraceMs` allows. */
  private stopped = false;
  private idleGraceMs = 0;
  private readonly connections = new Set<RawConnection>();
  private sweeper: NodeJS.Timeout | undefined;
  /** Connections handed to node, by the parser's reason. */
  readonly handovers: Partial<Record<HandoverReason, number>> = {};
  accepted = 0;

  constructor(private readonly opts: RawIngressOptions) {
    this.handle = opts.handle;
    this.keepAliveTimeoutMs = opts.keepAliveTimeoutMs;
    this.keepAliveHintMs = Math.min(opts.keepAliveHintMs ?? opts.keepAliveTimeoutMs, opts.keepAliveTimeoutMs);
    this.headersTimeoutMs = opts.headersTimeoutMs;
    this.bodyTimeoutMs = opts.bodyTimeoutMs;
    this.route = opts.route;
    this.maxHeadBytes = opts.maxHeadBytes ?? MAX_HEAD_BYTES;
    // The same socket options node's http server uses (it may end up owning the socket).
    this.server = opts.server ?? createServer({ allowHalfOpen: true, noDelay: true }, this.accept);
    if (opts.server) opts.server.on('secureConnection', this.accept);
    // node starts tracking connections (headersTimeout checks, closeIdleConnections) on its
    // 'listening' event; the fallback never listens, so it is told here.
    opts.fallback.emit('listening');
  }

  private readonly accept = (socket: Socket): void => {
    this.accepted++;
    // While draining, a connection still arrives until every proxy has dropped this endpoint;
    // it is served (its answer says Connection: close). Only once closed is it refused.
    if (this.stopped) {
      socket.destroy();
      return;
    }
    this.connections.add(new RawConnection(socket, this));
  };

  handover(socket: Socket, reason: HandoverReason): void {
    this.handovers[reason] = (this.handovers[reason] ?? 0) + 1;
    this.opts.fallback.emit('connection', socket);
  }

  handoverHttp2(socket: Socket, consumed: Buffer): void {
    this.handovers.h2_preface = (this.handovers.h2_preface ?? 0) + 1;
    if (this.opts.http2) {
      this.opts.http2.accept(socket, consumed);
      return;
    }
    socket.unshift(consumed);
    this.opts.fallback.emit('connection', socket);
    socket.resume();
  }

  forget(conn: RawConnection): void {
    this.connections.delete(conn);
  }

  get openConnections(): number {
    return this.connections.size;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => {
        this.server.off('error', reject);
        // One sweep for every connection's deadline instead of a timer per connection.
        const period = Math.max(10, Math.min(1_000, this.headersTimeoutMs / 4, this.keepAliveTimeoutMs / 4, (this.bodyTimeoutMs ?? Infinity) / 4));
        this.sweeper = setInterval(() => {
          const now = performance.now();
          for (const c of this.connections) c.checkDeadline(now);
          if (this.stopped) this.closeIdle(now);
        }, period);
        this.sweeper.unref();
        resolve(this.server.address() as AddressInfo);
      });
    });
  }

  /**
   * Stops accepting; busy connections close after their response (which says `Connection:
   * close`). With `idleGraceMs` 0, idle connections close now, as node's server closes them.
   * Otherwise an idle connection closes once it has been idle that long since its last response
   * (a client sending on it at the moment it closes would lose that request), and one that has
   * not carried a request yet waits for it. Resolves when every connection, handed over or not,
   * has closed; after `forceAfterMs` the rest are destroyed.
   */
  close(forceAfterMs = 5_000, idleGraceMs = 0): Promise<void> {
    this.closing = true;
    this.stopped = true;
    this.idleGraceMs = idleGraceMs;
    const fallback = this.opts.fallback;
    return new Promise<void>((resolve) => {
      // net.Server counts every socket it accepted, those handed to node included.
      this.server.close(() => resolve());
      this.closeIdle(performance.now());
      fallback.close();
      const force = setTimeout(() => {
        for (const c of this.connections) c.destroy();
        fallback.closeAllConnections();
      }, forceAfterMs);
      force.unref();
      this.server.once('close', () => {
        clearTimeout(force);
        if (this.sweeper) clearInterval(this.sweeper);
      });
    });
  }

  private closeIdle(now: number): void {
    if (this.idleGraceMs === 0) {
      for (const c of this.connections) if (c.idle) c.destroy();
      return;
    }
    for (const c of this.connections) if (c.idleAtLeast(this.idleGraceMs, now)) c.destroy();
  }
}
