/**
 * One client connection on the raw ingress: reads request heads with the strict parser, streams
 * Content-Length bodies, and runs requests strictly one after another — the next head (pipelined
 * or not) is parsed only once the current response has ended and its body has been read or
 * discarded. A head the parser does not take is handed, with every byte read so far, to node's
 * http server, which owns the connection from then on.
 *
 *   head ──► body (Content-Length) ──► respond ──► head …
 *                                   └► discard (response ended before the body) ──► head …
 *   any head the parser refuses ──► handover to node:http (never taken back)
 */
import type { Socket } from 'node:net';
import { startsWithHttp2Preface } from '@orrery/h2c';
import type { IngressHandler } from './ingress.ts';
import { RawExchange, type RawExchangeConnection } from './raw-exchange.ts';
import { RawRequestBody, type BodyFlowControl } from './raw-request-body.ts';
import { parseRequestHead, type HandoverReason, type ParsedHead } from './request-head-parser.ts';
import type { RequestRoute } from './raw-ingress-server.ts';
import { readThroughSharedBuffer, type SharedBufferReads } from './shared-read-buffer.ts';
// The module's binding: Node 20's globalThis.performance is an accessor, a getter call on every use.
import { performance } from 'node:perf_hooks';

/** What a connection needs from its server (raw-ingress-server.ts). */
export interface RawConnectionHost {
  readonly handle: IngressHandler;
  readonly keepAliveTimeoutMs: number;
  /** What `Keep-Alive: timeout=` announces: at most keepAliveTimeoutMs (see raw-ingress-server.ts). */
  readonly keepAliveHintMs: number;
  readonly headersTimeoutMs: number;
  /** Time allowed for a request body after its head; undefined = no limit. */
  readonly bodyTimeoutMs: number | undefined;
  /** Which parsed requests this ingress serves; undefined = all of them. */
  readonly route: RequestRoute | undefined;
  readonly maxHeadBytes: number;
  /** The server is shutting down: answer the current request with `Connection: close`. */
  readonly closing: boolean;
  handover(socket: Socket, reason: HandoverReason): void;
  /** A connection that opened with the HTTP/2 preface; `consumed`: the bytes read so far. */
  handoverHttp2(socket: Socket, consumed: Buffer): void;
  forget(conn: RawConnection): void;
}

const enum Phase {
  /** Waiting for (the rest of) a request head. */
  Head,
  /** Reading the request body. */
  Body,
  /** Body read (or none); the response is under way. */
  Respond,
  /** The response ended before the body: reading and dropping the rest of it. */
  Discard,
  /** The last response is out; the socket closes. */
  Closing,
  /** Closed or handed over. */
  Gone,
}

const enum Deadline {
  None,
  /** No complete head in time (node's headersTimeout): 408 and close. */
  Head,
  /** Idle between requests (node's keepAliveTimeout): close. */
  Idle,
  /** The body has not all arrived in time (node's requestTimeout): close. */
  Body,
}

/** Bodies up to this size are joined with the head into one string write; larger ones go out corked (writev). */
const JOIN_LIMIT = 4 * 1024;
const REQUEST_TIMEOUT_RESPONSE = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n';
const CR = 0x0d;
const LF = 0x0a;

function parseNext(conn: RawConnection): void {
  conn.parseBuffered();
}

export class RawConnection implements RawExchangeConnection, BodyFlowControl {
  private phase = Phase.Head;
  /** Bytes read but not yet consumed (a partial head, or the next request's). */
  private buf: Buffer | undefined;
  private exchange: RawExchange | undefined;
  private body: RawRequestBody | undefined;
  private bodyRemaining = 0;
  private readingPaused = false;
  private deadlineKind = Deadline.Head;
  /** performance.now() ms; the server's sweeper enforces it. */
  deadline: number;
  /** The current request carried `Connection: close`. */
  private clientClose = false;
  /** Requests started on this connection. */
  private served = 0;
  /** performance.now() ms when the last response ended with nothing of the next request read. */
  private idleSince = 0;
  /** Reads through the process's shared buffer (undefined: this socket reads through 'data'). */
  private readonly reads: SharedBufferReads | undefined;
  readonly remoteAddress: string;

  constructor(
    readonly socket: Socket,
    private readonly host: RawConnectionHost,
  ) {
    this.remoteAddress = socket.remoteAddress ?? '';
    // Like node: the first head must be complete within headersTimeout of the connection.
    this.deadline = performance.now() + host.headersTimeoutMs;
    this.reads = readThroughSharedBuffer(socket, this.onData);
    if (this.reads === undefined) socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('error', this.onError);
    socket.on('close', this.onClose);
    socket.on('drain', this.onDrain);
  }

  get keepAliveHintMs(): number {
    return this.host.keepAliveHintMs;
  }

  get closeAfter(): boolean {
    return this.clientClose || this.host.closing;
  }

  /** No request under way (at most part of a head, as node counts idle): closed at once at shutdown. */
  get idle(): boolean {
    return this.phase === Phase.Head;
  }

  /**
   * Idle for at least `graceMs` after a response, with no byte of a next request read: a client
   * that honours the announced keep-alive timeout (≤ graceMs) no longer sends on it, so closing
   * it cannot race a request. A connection that never carried a request is not: its client
   * opened it to send one.
   */
  idleAtLeast(graceMs: number, now: number): boolean {
    return this.phase === Phase.Head && this.buf === undefined && this.served > 0 && now - this.idleSince >= graceMs;
  }

  private readonly onData = (chunk: Buffer): void => {
    switch (this.phase) {
      case Phase.Head: {
        const appended = this.buf !== undefined;
        this.buf = appended ? Buffer.concat([this.buf!, chunk]) : chunk;
        if (this.deadlineKind !== Deadline.Head) this.setDeadline(Deadline.Head, this.host.headersTimeoutMs);
        // A head dribbled in without line ends is parsed again only when a line can have completed.
        if (appended && chunk.indexOf(LF) < 0 && chunk.indexOf(CR) < 0 && this.buf.length < this.host.maxHeadBytes) return;
        this.parseBuffered();
        return;
      }
      case Phase.Body:
        this.feedBody(chunk);
        return;
      case Phase.Respond:
        this.stash(chunk);
        return;
      case Phase.Discard:
        this.discard(chunk);
        return;
      default:
        return;
    }
  };

  /** Parses the buffered head, if complete: starts the request, or hands the connection over. */
  parseBuffered(): void {
    if (this.phase !== Phase.Head || this.buf === undefined) return;
    const r = parseRequestHead(this.buf, this.host.maxHeadBytes);
    if (r.kind === 'incomplete') return;
    if (r.kind === 'handover') {
      this.handover(r.reason);
      return;
    }
    const route = this.host.route;
    if (route !== undefined && !route(r)) {
      this.handover('route');
      return;
    }
    this.start(r);
  }

  private start(head: ParsedHead): void {
    const buf = this.buf!;
    const rest = head.headBytes < buf.length ? buf.subarray(head.headBytes) : undefined;
    this.buf = undefined;
    this.setDeadline(Deadline.None, 0);
    this.clientClose = head.close;
    this.served++;
    const ex = new RawExchange(this, head);
    this.exchange = ex;
    if (head.contentLength > 0) {
      this.body = ex.body = new RawRequestBody(this);
      this.bodyRemaining = head.contentLength;
      this.phase = Phase.Body;
      const bodyTimeoutMs = this.host.bodyTimeoutMs;
      if (bodyTimeoutMs !== undefined) this.setDeadline(Deadline.Body, bodyTimeoutMs);
      if (rest) this.feedBody(rest);
    } else {
      this.phase = Phase.Respond;
      if (rest) this.stash(rest);
    }
    this.host.handle(ex, ex);
  }

  private feedBody(chunk: Buffer): void {
    const n = Math.min(this.bodyRemaining, chunk.length);
    this.bodyRemaining -= n;
    const body = this.body!;
    body.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    if (this.bodyRemaining > 0) return;
    if (this.deadlineKind === Deadline.Body) this.setDeadline(Deadline.None, 0);
    // The phase may have moved on inside push (the response ended at once).
    if (this.phase === Phase.Body) {
      this.phase = Phase.Respond;
      body.finish();
    }
    if (n < chunk.length) this.onData(chunk.subarray(n));
  }

  /** The next request's bytes, kept until this response ends; a flood stops reading. */
  private stash(chunk: Buffer): void {
    this.buf = this.buf === undefined ? chunk : Buffer.concat([this.buf, chunk]);
    if (this.buf.length >= this.host.maxHeadBytes) this.pauseReading();
  }

  private discard(chunk: Buffer): void {
    const n = Math.min(this.bodyRemaining, chunk.length);
    this.bodyRemaining -= n;
    if (this.bodyRemaining > 0) return;
    this.nextRequest(n < chunk.length ? chunk.subarray(n) : undefined);
  }

  send(prefix: string, data: Buffer | undefined, suffix: string): boolean {
    const s = this.socket;
    if (s.destroyed) return true;
    if (data === undefined) return prefix.length + suffix.length > 0 ? s.write(prefix + suffix, 'latin1') : true;
    if (data.length <= JOIN_LIMIT) return s.write(prefix + data.toString('latin1') + suffix, 'latin1');
    s.cork();
    if (prefix.length > 0) s.write(prefix, 'latin1');
    let ok = s.write(data);
    if (suffix.length > 0) ok = s.write(suffix, 'latin1');
    s.uncork();
    return ok;
  }

  responseEnded(ex: RawExchange, close: boolean): void {
    if (this.exchange !== ex) return;
    this.exchange = undefined;
    if (close || this.host.closing) {
      this.body?.drop();
      this.body = undefined;
      this.phase = Phase.Closing;
      this.buf = undefined;
      this.setDeadline(Deadline.Idle, this.host.keepAliveTimeoutMs);
      this.socket.destroySoon();
      return;
    }
    if (this.phase === Phase.Body) {
      // Like node: the rest of an unread body is read and dropped; the connection stays usable.
      this.body!.drop();
      this.body = undefined;
      this.phase = Phase.Discard;
      this.resumeReading();
      return;
    }
    this.nextRequest(undefined);
  }

  private nextRequest(more: Buffer | undefined): void {
    this.body?.drop();
    this.body = undefined;
    this.phase = Phase.Head;
    if (more) this.buf = this.buf === undefined ? more : Buffer.concat([more, this.buf]);
    if (this.buf !== undefined) {
      this.setDeadline(Deadline.Head, this.host.headersTimeoutMs);
      // Not from inside the response's end() call chain: the data plane is still unwinding.
      process.nextTick(parseNext, this);
    } else {
      const now = performance.now();
      this.idleSince = now;
      this.setDeadline(Deadline.Idle, this.host.keepAliveTimeoutMs, now);
    }
    this.resumeReading();
  }

  private handover(reason: HandoverReason): void {
    const socket = this.socket;
    // Checked here, off the parser's path: an h2c client's first bytes are refused by it as any non-HTTP/1.1 head is.
    const buf = this.buf;
    this.detach();
    this.buf = undefined;
    if (buf !== undefined && startsWithHttp2Preface(buf)) {
      this.host.handoverHttp2(socket, buf);
      return;
    }
    if (buf !== undefined) socket.unshift(buf);
    this.host.handover(socket, reason);
    // node's listeners are on; a paused socket would never deliver the bytes given back.
    socket.resume();
  }

  pauseReading(): void {
    if (this.readingPaused) return;
    this.readingPaused = true;
    this.socket.pause();
  }

  resumeReading(): void {
    if (!this.readingPaused) return;
    // A stash of the next request's bytes that is already full keeps the socket paused.
    if (this.phase === Phase.Respond && this.buf !== undefined && this.buf.length >= this.host.maxHeadBytes) return;
    this.readingPaused = false;
    this.socket.resume();
  }

  destroy(): void {
    this.socket.destroy();
  }

  /** Called by the server's sweeper. */
  checkDeadline(now: number): void {
    if (this.deadlineKind === Deadline.None || now <= this.deadline) return;
    if (this.deadlineKind === Deadline.Head && this.phase === Phase.Head) {
      // node's headersTimeout answer (slowloris): 408, then close.
      this.phase = Phase.Closing;
      this.setDeadline(Deadline.Idle, 1_000);
      this.socket.end(REQUEST_TIMEOUT_RESPONSE, 'latin1');
      this.socket.destroySoon();
      return;
    }
    this.socket.destroy();
  }

  /** `now`: performance.now() when the caller has just read it. */
  private setDeadline(kind: Deadline, ms: number, now?: number): void {
    this.deadlineKind = kind;
    this.deadline = kind === Deadline.None ? 0 : (now ?? performance.now()) + ms;
  }

  private readonly onEnd = (): void => {
    // A half-close ends the connection (node's httpAllowHalfOpen = false); an exchange under way is aborted.
    this.socket.destroy();
  };

  private readonly onError = (): void => {
    // 'close' follows and does the cleanup.
  };

  private readonly onDrain = (): void => {
    const ex = this.exchange;
    if (ex?.needDrain) {
      ex.needDrain = false;
      ex.listener?.onDrain();
    }
  };

  private readonly onClose = (): void => {
    const ex = this.exchange;
    this.exchange = undefined;
    this.phase = Phase.Gone;
    this.buf = undefined;
    this.setDeadline(Deadline.None, 0);
    this.host.forget(this);
    ex?.connectionClosed();
  };

  private detach(): void {
    const s = this.socket;
    // Whoever takes the socket reads it through its stream from now on.
    if (this.reads !== undefined) this.reads.release();
    else s.removeListener('data', this.onData);
    s.removeListener('end', this.onEnd);
    s.removeListener('error', this.onError);
    s.removeListener('close', this.onClose);
    s.removeListener('drain', this.onDrain);
    this.phase = Phase.Gone;
    this.setDeadline(Deadline.None, 0);
    this.host.forget(this);
  }
}
