/**
 * HTTP/2 on the data-plane port: connections that open with the h2c preface (prior knowledge,
 * @orrery/h2c) are handed here by the raw ingress, and each stream becomes one data-plane
 * request — routed, admitted, counted and released exactly like an HTTP/1.1 request. A gRPC
 * stream goes on to the worker over h2c (http2-upstream.ts) with trailers intact; any other
 * stream goes over the HTTP/1.1 pool, so every runtime can serve it (docs/router.md).
 *
 *   preface ──► node:http2 session ──► 'stream' ──► Http2Exchange ──► data plane (route, Admit…)
 *                                                    └► the router's own errors: gRPC status or JSON
 */
import { createServer, constants, type Http2Server, type Http2Session, type IncomingHttpHeaders, type OutgoingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { validateHeaderName, validateHeaderValue } from 'node:http';
import type { Socket } from 'node:net';
import type { Http2RequestInfo, IngressHandler, IngressRequest, IngressResponse, RequestBody, ResponseListener } from '@orrery/raw-http';
import { encodeGrpcMessage, grpcStatusOf } from './grpc-error-status.ts';
import { http2RequestHead } from './http2-request-head.ts';
import { prefacedSocket } from '@orrery/h2c';

/** Streams one client may have open at once (a gRPC client opens more sessions beyond it). */
export const MAX_CONCURRENT_STREAMS = 1000;

/** Never sent on HTTP/2 (RFC 9113 §8.2.2); a worker's HTTP/1.1 answer may carry them. */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

function ignore(): void {
  // 'close' follows
}

export class Http2Ingress {
  readonly server: Http2Server;
  /** Open sessions and their open streams (node does not count them publicly). */
  private readonly sessions = new Map<Http2Session, number>();
  /** The client address of each session (its socket is node's JS wrapper, which does not know it). */
  private readonly peers = new WeakMap<Http2Session, string>();
  private acceptingFrom = '';

  constructor(
    private readonly handle: IngressHandler,
    /** An idle session (no open stream) closes after this. */
    private readonly idleTimeoutMs: number,
  ) {
    this.server = createServer({ settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS, enablePush: false } });
    this.server.on('session', this.onSession);
    this.server.on('stream', this.onStream);
    this.server.on('sessionError', ignore);
  }

  get openSessions(): number {
    return this.sessions.size;
  }

  /** A connection whose first bytes (`consumed`, already read) are the preface. */
  accept(socket: Socket, consumed: Buffer): void {
    // node creates the session, and emits 'session', within this emit.
    this.acceptingFrom = socket.remoteAddress ?? '';
    socket.on('error', ignore);
    this.server.emit('connection', prefacedSocket(socket, consumed));
    this.acceptingFrom = '';
  }

  private readonly onSession = (session: Http2Session): void => {
    this.sessions.set(session, 0);
    this.peers.set(session, this.acceptingFrom);
    session.on('error', ignore);
    session.once('close', () => this.sessions.delete(session));
    const onTimeout = () => {
      // Only idle sessions go: a quiet bidi stream is not a dead connection. node fires a
      // session's timeout once, so a busy session arms it again for when its streams end.
      if (this.sessions.get(session) === 0) session.close();
      else if (!session.closed) session.setTimeout(this.idleTimeoutMs, onTimeout);
    };
    session.setTimeout(this.idleTimeoutMs, onTimeout);
  };

  private readonly onStream = (stream: ServerHttp2Stream, headers: IncomingHttpHeaders, flags: number): void => {
    stream.on('error', ignore);
    const session = stream.session;
    if (session) {
      this.sessions.set(session, (this.sessions.get(session) ?? 0) + 1);
      stream.once('close', () => {
        const n = this.sessions.get(session);
        if (n !== undefined) this.sessions.set(session, n - 1);
      });
    }
    const ex = new Http2Exchange(stream, headers, (flags & constants.NGHTTP2_FLAG_END_STREAM) !== 0, (session && this.peers.get(session)) ?? '');
    this.handle(ex, ex);
  };

  /** Draining: every session says GOAWAY (clients open new streams elsewhere); open streams finish. */
  goAway(): void {
    for (const s of this.sessions.keys()) if (!s.closed) s.close();
  }

  /** Resolves when every session has closed; after `forceAfterMs` the rest are destroyed. */
  close(forceAfterMs: number): Promise<void> {
    this.goAway();
    if (this.sessions.size === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => {
        for (const s of this.sessions.keys()) s.destroy();
        resolve();
      }, forceAfterMs);
      force.unref();
      const check = () => {
        if (this.sessions.size > 0) return;
        clearTimeout(force);
        resolve();
      };
      for (const s of this.sessions.keys()) s.once('close', () => setImmediate(check));
    });
  }
}

/** One HTTP/2 stream as the data plane's request and response. */
export class Http2Exchange implements IngressRequest, IngressResponse {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  readonly remoteAddress: string;
  readonly body: RequestBody | null;
  readonly http2: Http2RequestInfo;
  destroyed = false;
  private responded = false;
  private pendingHead: OutgoingHttpHeaders | undefined;
  private trailerList: string[] | undefined;
  private listener: ResponseListener | undefined;
  private ended = false;

  constructor(
    private readonly stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    endStream: boolean,
    remoteAddress: string,
  ) {
    const head = http2RequestHead(headers, endStream);
    this.method = head.method;
    this.url = head.path;
    this.rawHeaders = head.rawHeaders;
    this.remoteAddress = remoteAddress;
    this.body = endStream ? null : stream;
    this.http2 = { grpc: head.grpc, deadlineMs: head.deadlineMs };
    stream.on('close', this.onClose);
    stream.on('drain', this.onDrain);
    if (head.grpc) stream.on('wantTrailers', this.onWantTrailers);
  }

  get readableDidRead(): boolean {
    return this.stream.readableDidRead;
  }

  get headersSent(): boolean {
    return this.pendingHead !== undefined || this.responded;
  }

  setListener(listener: ResponseListener | undefined): void {
    this.listener = listener;
  }

  writeHead(status: number, _statusText: string | undefined, headers: string[]): void {
    if (this.headersSent) throw new Error('the response head was already written');
    const out: OutgoingHttpHeaders = { ':status': status };
    for (let i = 0; i < headers.length; i += 2) {
      const name = headers[i]!.toLowerCase();
      if (CONNECTION_SPECIFIC.has(name)) continue;
      const value = headers[i + 1]!;
      // Validated now, so a bad header throws here (and sends nothing), as on the other ingresses.
      validateHeaderName(name);
      validateHeaderValue(name, value);
      const had = out[name];
      if (had === undefined) out[name] = value;
      else if (Array.isArray(had)) had.push(value);
      else out[name] = [String(had), value];
    }
    this.pendingHead = out;
    // A gRPC head is held for this turn: when the end follows at once (a trailers-only answer), it goes as one block.
    if (this.http2.grpc) queueMicrotask(this.flushHead);
    else this.flushHead();
  }

  private readonly flushHead = (): void => {
    const head = this.pendingHead;
    if (head === undefined || this.responded) return;
    this.responded = true;
    if (this.destroyed || this.stream.destroyed) return;
    try {
      this.stream.respond(head, { waitForTrailers: this.http2.grpc });
    } catch {
      this.destroy();
    }
  };

  /** Response trailers, sent after the body (gRPC's grpc-status, grpc-message and metadata). */
  setTrailers(trailers: string[]): void {
    this.trailerList = trailers;
  }

  write(chunk: Buffer): boolean {
    if (this.destroyed) return true;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    this.flushHead();
    return this.stream.write(chunk);
  }

  end(lastChunk?: Buffer | string): void {
    if (this.destroyed || this.ended) return;
    this.ended = true;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    const head = this.pendingHead;
    const empty = lastChunk === undefined || lastChunk.length === 0;
    if (!this.responded && head !== undefined && this.http2.grpc && empty && this.trailerList === undefined) {
      // Trailers-only: the worker's status came in its head.
      this.responded = true;
      if (!this.stream.destroyed) this.stream.respond(head, { endStream: true });
      return;
    }
    this.flushHead();
    if (this.stream.destroyed) return;
    if (empty) this.stream.end();
    else this.stream.end(lastChunk);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    if (!this.stream.destroyed) this.stream.close(constants.NGHTTP2_INTERNAL_ERROR);
  }

  /** The router's own error: a trailers-only gRPC status for gRPC, the usual JSON otherwise. */
  answerError(status: number, code: string, message: string): void {
    if (!this.http2.grpc) {
      const body = JSON.stringify({ error: message, code });
      this.writeHead(status, undefined, ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))]);
      this.end(body);
      return;
    }
    this.responded = true;
    this.ended = true;
    if (this.stream.destroyed) return;
    this.stream.respond(
      { ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(grpcStatusOf(status, code)), 'grpc-message': encodeGrpcMessage(message), 'orrery-error-code': code },
      { endStream: true },
    );
  }

  private readonly onWantTrailers = (): void => {
    const t: OutgoingHttpHeaders = {};
    const list = this.trailerList;
    if (list === undefined) {
      // The worker's answer ended without a status (it was not a gRPC server): the client must not read success.
      t['grpc-status'] = '13';
      t['grpc-message'] = encodeGrpcMessage('the worker ended the response without a gRPC status');
    } else {
      for (let i = 0; i < list.length; i += 2) {
        const name = list[i]!.toLowerCase();
        if (CONNECTION_SPECIFIC.has(name)) continue;
        const had = t[name];
        if (had === undefined) t[name] = list[i + 1]!;
        else if (Array.isArray(had)) had.push(list[i + 1]!);
        else t[name] = [String(had), list[i + 1]!];
      }
    }
    try {
      this.stream.sendTrailers(t);
    } catch {
      this.destroy();
    }
  };

  private readonly onDrain = (): void => {
    this.listener?.onDrain();
  };

  private readonly onClose = (): void => {
    const cleanEnd = this.ended && this.stream.rstCode === constants.NGHTTP2_NO_ERROR;
    this.destroyed = true;
    if (!cleanEnd) this.listener?.onClientClose();
  };
}
