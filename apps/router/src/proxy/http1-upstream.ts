/**
 * A minimal HTTP/1.1 keep-alive client for the proxy's upstream leg. A general client (undici)
 * spent ~40 µs of CPU per proxied request here, most of it on generality the proxy does not
 * need (header validation of already-parsed headers, request queues, pipelining, wasm parser
 * callbacks per header). This one writes the request head as one string, parses the response
 * head with indexOf (response-head-parser.ts), and streams bodies (Content-Length, chunked, or
 * until close) through.
 * One request per connection at a time; idle connections are reused LIFO (warmest first).
 */
import { IDEMPOTENT_METHODS, neverReadByWorker } from './idempotent-retry.ts';
import { connect, type Socket } from 'node:net';
import { type RequestBody, SharedBufferReads, SlotList, type Slotted } from '@orrery/raw-http';
import { parseUpstreamResponseHead } from './response-head-parser.ts';
// The module's binding: Node 20's globalThis.performance is an accessor, a getter call on every use.
import { performance } from 'node:perf_hooks';

export interface UpstreamHandler {
  /** Gives the handler a way to abort the exchange (e.g. the client went away). */
  onConnect(abort: (err?: Error) => void): void;
  /** Flat [name, value, …] list, hop-by-hop headers already removed. Return false to pause. */
  onHeaders(statusCode: number, headers: string[], resume: () => void, statusText: string): boolean;
  /** A body chunk; false pauses the upstream socket until `resume`. */
  onData(chunk: Buffer): boolean;
  /** The response ended; `lastChunk` is the final body piece when it arrived together with the end. */
  onComplete(trailers: string[] | null, lastChunk?: Buffer): void;
  onError(err: Error): void;
  /**
   * The worker answered an upgrade request (`UpstreamPool.dispatchUpgrade`) with 101: the
   * connection is the handler's from now on (no listener of this client is left on it).
   * `headers` are the 101's without hop-by-hop ones; `protocol` is its Upgrade value;
   * `head` holds bytes that came after the 101 head (the first frames).
   */
  onUpgrade?(statusText: string, headers: string[], protocol: string | undefined, socket: Socket, head: Buffer): void;
}

export interface UpstreamRequest {
  method: string;
  path: string;
  /** Flat [name, value, …] list without hop-by-hop headers (and without Host). */
  headers: string[];
  /** A body to stream (chunked unless `headers` carry content-length), or null. */
  body: RequestBody | null;
  /**
   * Instead of `body`: a whole body known up front (the activator's JSON calls to the operator, a
   * replayed request's held body), sent with the head in one write (a string as UTF-8); `headers`
   * must carry its byte length.
   */
  wholeBody?: string | Buffer;
  bodyHasLength: boolean;
  /** No response head within this → error code ORRERY_HEADERS_TIMEOUT; idle body → ORRERY_BODY_TIMEOUT. */
  timeoutMs: number;
  /** > 0: a streamed body beyond this many bytes fails with ORRERY_BODY_TOO_LARGE. */
  maxBodyBytes?: number;
}

export class UpstreamError extends Error {
  constructor(
    message: string,
    readonly code: string,
    /** The worker reset the connection without having read any of the request (neverReadByWorker). */
    readonly neverRead = false,
  ) {
    super(message);
  }
}

const CRLF = 0x0a; // searched as "\n"; lines end with "\r\n"
const HEAD_LIMIT = 64 * 1024;

const enum State {
  Head,
  BodyLength,
  BodyChunkSize,
  BodyChunkData,
  BodyChunkDataEnd,
  BodyTrailers,
  BodyUntilClose,
  Done,
}

/** Every busy connection, swept for timeouts; every idle one, swept for expiry. (A SlotList: a Set allocates as it swings.) */
const busy = new SlotList<UpstreamConnection>();
let sweeper: NodeJS.Timeout | undefined;
function ensureSweeper(): void {
  if (sweeper) return;
  sweeper = setInterval(() => {
    const now = performance.now();
    busy.forEach((c) => c.checkTimeout(now));
  }, 250);
  sweeper.unref();
}

class UpstreamConnection implements Slotted {
  readonly socket: Socket;
  /** Its place in `busy` while an exchange is on it. */
  slotIndex = -1;
  private handler: UpstreamHandler | undefined;
  private req: UpstreamRequest | undefined;
  private state = State.Done;
  /** Unparsed tail of the previous packet (a head or a chunk line split across packets). */
  private pending: Buffer | undefined;
  private remaining = 0;
  private keepAlive = true;
  private isHead = false;
  private bodyWritten = true;
  /** This exchange's request left in one write (no streamed body) of this many bytes; 0 = not yet or streamed. */
  private requestBytes = 0;
  private deadline = 0;
  private sawResponseByte = false;
  connected = false;
  reused = false;
  closed = false;
  idleSince = 0;
  private paused = false;
  /** Carries an upgrade request: a 101 hands the socket over, any other answer closes it. */
  upgrading = false;
  /** The socket's reads, through the process's shared buffer, until a 101 hands it over. */
  private readonly reads: SharedBufferReads;

  constructor(
    readonly pool: UpstreamPool,
    host: string,
    port: number,
  ) {
    this.reads = new SharedBufferReads(this.onSocketData);
    this.socket = connect({ host, port, noDelay: true, onread: this.reads.onread });
    this.reads.socket = this.socket;
    this.socket.on('error', this.onSocketError);
    this.socket.on('close', this.onSocketClose);
    this.socket.on('end', this.onSocketEnd);
    this.socket.on('drain', this.onSocketDrain);
    this.socket.once('connect', this.onSocketConnect);
  }

  /**
   * The worker closed its side (its keep-alive timeout ran out, or it is exiting). While idle the
   * connection is finished at once: between this FIN and the socket's 'close' node would accept a
   * request's write and fail it with EPIPE ("This socket has been ended by the other party"), a
   * 502 for a request that never left the router. During an exchange 'close' decides, as before.
   */
  private readonly onSocketEnd = (): void => {
    if (this.handler) return;
    this.closed = true;
    this.pool.dropIdle(this);
    this.socket.destroy();
  };

  private readonly onSocketConnect = (): void => {
    this.connected = true;
    this.deadline = this.req ? performance.now() + this.req.timeoutMs : 0;
    if (this.req) this.writeRequest();
  };

  /** `now`: performance.now() of the caller, when it has just read it. */
  start(req: UpstreamRequest, handler: UpstreamHandler, now: number = performance.now()): void {
    this.req = req;
    this.handler = handler;
    this.state = State.Head;
    this.pending = undefined;
    this.keepAlive = true;
    this.isHead = req.method === 'HEAD';
    this.sawResponseByte = false;
    this.requestBytes = 0;
    this.paused = false;
    busy.add(this);
    ensureSweeper();
    handler.onConnect(this.abort);
    if (this.connected) {
      this.deadline = now + req.timeoutMs;
      this.writeRequest();
    } else {
      this.deadline = now + this.pool.connectTimeoutMs;
    }
  }

  private readonly abort = (err?: Error): void => {
    this.fail(err ?? new UpstreamError('aborted', 'ORRERY_ABORTED'));
  };

  private writeRequest(): void {
    const r = this.req!;
    let head = `${r.method} ${r.path} HTTP/1.1\r\nhost: ${this.pool.address}\r\n`;
    const h = r.headers;
    for (let i = 0; i < h.length; i += 2) head += `${h[i]}: ${h[i + 1]}\r\n`;
    if (r.body && !r.bodyHasLength) head += 'transfer-encoding: chunked\r\n';
    head += '\r\n';
    if (!r.body) {
      this.bodyWritten = true;
      this.requestBytes = head.length + (r.wholeBody === undefined ? 0 : Buffer.byteLength(r.wholeBody));
      if (r.wholeBody === undefined) this.socket.write(head, 'latin1');
      else {
        // Corked: one writev for head and body.
        this.socket.cork();
        this.socket.write(head, 'latin1');
        if (typeof r.wholeBody === 'string') this.socket.write(r.wholeBody, 'utf8');
        else this.socket.write(r.wholeBody);
        this.socket.uncork();
      }
      return;
    }
    this.bodyWritten = false;
    this.socket.write(head, 'latin1');
    const body = r.body;
    const chunked = !r.bodyHasLength;
    const limit = r.maxBodyBytes ?? 0;
    let sent = 0;
    const onData = (c: Buffer): void => {
      if (this.req !== r) return;
      sent += c.length;
      if (limit > 0 && sent > limit) {
        cleanup();
        this.fail(new UpstreamError(`request body exceeds ${limit} bytes`, 'ORRERY_BODY_TOO_LARGE'));
        return;
      }
      let ok: boolean;
      if (chunked) {
        // Three writes, never short-circuited: a full buffer still queues the data.
        this.socket.write(`${c.length.toString(16)}\r\n`, 'latin1');
        this.socket.write(c);
        ok = this.socket.write('\r\n', 'latin1');
      } else {
        ok = this.socket.write(c);
      }
      if (!ok) body.pause();
    };
    const onEnd = (): void => {
      cleanup();
      if (this.req !== r) return;
      if (chunked) this.socket.write('0\r\n\r\n');
      this.bodyWritten = true;
    };
    const onError = (err: Error): void => {
      cleanup();
      if (this.req === r) this.fail(err);
    };
    const cleanup = (): void => {
      body.removeListener('data', onData);
      body.removeListener('end', onEnd);
      body.removeListener('error', onError);
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    this.bodyStream = body;
  }

  private bodyStream: RequestBody | undefined;

  private readonly onSocketDrain = (): void => {
    if (this.bodyStream && !this.bodyWritten) this.bodyStream.resume();
  };

  private readonly resume = (): void => {
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
  };

  checkTimeout(now: number): void {
    if (this.deadline > 0 && now > this.deadline) {
      const code = !this.connected ? 'ORRERY_CONNECT_TIMEOUT' : this.state === State.Head ? 'ORRERY_HEADERS_TIMEOUT' : 'ORRERY_BODY_TIMEOUT';
      this.fail(new UpstreamError(`upstream ${this.pool.address}: ${code.slice(7).toLowerCase().replace('_', ' ')}`, code));
    }
  }

  private readonly onSocketData = (chunk: Buffer): void => {
    if (!this.handler) {
      // Bytes on an idle connection: the server broke protocol; never reuse it.
      this.socket.destroy();
      return;
    }
    this.sawResponseByte = true;
    if (this.req) this.deadline = performance.now() + this.req.timeoutMs;
    this.parse(chunk);
  };

  private parse(chunk: Buffer): void {
    let buf = chunk;
    let pos = 0;
    if (this.pending) {
      buf = Buffer.concat([this.pending, chunk]);
      this.pending = undefined;
    }
    // A handler may abort from onData (a body over its limit): the exchange is over then.
    while (this.handler && (pos < buf.length || this.state === State.Done)) {
      switch (this.state) {
        case State.Head: {
          const end = buf.indexOf('\r\n\r\n', pos, 'latin1');
          if (end < 0) {
            if (buf.length - pos > HEAD_LIMIT) return this.fail(new UpstreamError('upstream response head too large', 'ORRERY_BAD_RESPONSE'));
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          const ok = this.onHead(buf.toString('latin1', pos, end), buf, end + 4);
          pos = end + 4;
          if (!ok) return;
          break;
        }
        case State.BodyLength: {
          const n = Math.min(this.remaining, buf.length - pos);
          const piece = pos === 0 && n === buf.length ? buf : buf.subarray(pos, pos + n);
          pos += n;
          this.remaining -= n;
          if (this.remaining === 0) {
            // The common small response: hand the last piece over with the end (one write to the client).
            if (pos < buf.length) this.keepAlive = false;
            this.complete(n > 0 ? piece : undefined);
            return;
          } else if (n > 0 && !this.handler.onData(piece)) {
            this.pause();
          }
          break;
        }
        case State.BodyUntilClose: {
          const piece = pos === 0 ? buf : buf.subarray(pos);
          pos = buf.length;
          if (!this.handler.onData(piece)) this.pause();
          break;
        }
        case State.BodyChunkSize: {
          const nl = buf.indexOf(CRLF, pos);
          if (nl < 0) {
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          const line = buf.toString('latin1', pos, nl).trim();
          pos = nl + 1;
          const size = parseInt(line, 16);
          if (!Number.isFinite(size) || size < 0) return this.fail(new UpstreamError('bad chunk size from upstream', 'ORRERY_BAD_RESPONSE'));
          if (size === 0) {
            this.state = State.BodyTrailers;
          } else {
            this.remaining = size;
            this.state = State.BodyChunkData;
          }
          break;
        }
        case State.BodyChunkData: {
          const n = Math.min(this.remaining, buf.length - pos);
          const piece = buf.subarray(pos, pos + n);
          pos += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = State.BodyChunkDataEnd;
          if (n > 0 && !this.handler.onData(piece)) this.pause();
          break;
        }
        case State.BodyChunkDataEnd: {
          const nl = buf.indexOf(CRLF, pos);
          if (nl < 0) {
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          pos = nl + 1;
          this.state = State.BodyChunkSize;
          break;
        }
        case State.BodyTrailers: {
          // Trailers are dropped (node re-frames the client response); the body ends at an empty line.
          const nl = buf.indexOf(CRLF, pos);
          if (nl < 0) {
            this.pending = Buffer.from(buf.subarray(pos));
            return;
          }
          const empty = nl === pos || (nl === pos + 1 && buf[pos] === 0x0d);
          pos = nl + 1;
          if (empty) this.state = State.Done;
          break;
        }
        case State.Done: {
          if (pos < buf.length) this.keepAlive = false; // pipelined garbage: do not reuse
          this.complete();
          return;
        }
      }
    }
  }

  private pause(): void {
    if (!this.paused) {
      this.paused = true;
      this.socket.pause();
    }
  }

  /** Parses status line and headers; false when the exchange ended inside (error, or a 1xx to skip, or a 101 that took the socket). */
  private onHead(text: string, buf: Buffer, bodyStart: number): boolean {
    const head = parseUpstreamResponseHead(text);
    if (typeof head === 'string') {
      this.fail(new UpstreamError(head === 'not_http1' ? `upstream ${this.pool.address} answered something other than HTTP/1.x` : `upstream ${this.pool.address} sent an invalid Content-Length`, 'ORRERY_BAD_RESPONSE'));
      return false;
    }
    const code = head.status;
    if (code >= 100 && code < 200 && code !== 101) {
      this.state = State.Head; // interim response (100 Continue): wait for the real one
      return true;
    }
    if (head.close) this.keepAlive = false;
    const out = head.headers;
    const statusText = head.statusText;
    const length = head.contentLength;
    if (code === 101 && this.upgrading) {
      this.switchProtocols(statusText, out, head.upgrade, buf.subarray(bodyStart));
      return false;
    }
    if (this.isHead || code === 204 || code === 304) this.state = State.Done;
    else if (head.chunked) this.state = State.BodyChunkSize;
    else if (length >= 0) {
      this.remaining = length;
      this.state = length === 0 ? State.Done : State.BodyLength;
    } else {
      this.state = State.BodyUntilClose;
      this.keepAlive = false;
    }
    const h = this.handler!;
    h.onHeaders(code, out, this.resume, statusText);
    if (this.handler !== h) return false; // the handler aborted inside onHeaders
    if (this.state === State.Done) {
      this.complete();
      return false;
    }
    return true;
  }

  /** A 101 to an upgrade request: the socket leaves this client for the handler (never back to the pool). */
  private switchProtocols(statusText: string, headers: string[], protocol: string | undefined, head: Buffer): void {
    const h = this.handler!;
    const s = this.socket;
    busy.delete(this);
    this.handler = undefined;
    this.req = undefined;
    this.bodyStream = undefined;
    this.deadline = 0;
    this.state = State.Done;
    this.closed = true;
    this.paused = false;
    this.reads.release();
    s.removeListener('error', this.onSocketError);
    s.removeListener('close', this.onSocketClose);
    s.removeListener('end', this.onSocketEnd);
    s.removeListener('drain', this.onSocketDrain);
    if (!h.onUpgrade) {
      s.destroy();
      h.onError(new UpstreamError(`upstream ${this.pool.address} switched protocols unasked`, 'ORRERY_BAD_RESPONSE'));
      return;
    }
    h.onUpgrade(statusText, headers, protocol, s, head);
  }

  private complete(lastChunk?: Buffer): void {
    const h = this.handler!;
    this.release(this.keepAlive && this.bodyWritten);
    h.onComplete(null, lastChunk);
  }

  private release(reusable: boolean): void {
    busy.delete(this);
    this.handler = undefined;
    this.req = undefined;
    this.bodyStream = undefined;
    this.deadline = 0;
    this.state = State.Done;
    if (this.paused) {
      this.paused = false;
      this.socket.resume();
    }
    if (reusable && !this.closed && !this.upgrading) {
      this.reused = true;
      this.idleSince = performance.now();
      this.pool.putIdle(this);
    } else {
      this.socket.destroy();
    }
  }

  private fail(err: Error): void {
    const h = this.handler;
    if (!h) return;
    this.release(false);
    h.onError(err);
  }

  /**
   * A reset on a reused connection before any response byte is most often the worker closing it
   * while idle, but it may also be a worker that died after it started on the request. Sending it
   * again is safe only for an idempotent method without a body (RFC 9110 §9.2.2, as browsers and
   * undici do): a POST or PATCH whose first try may have run fails with 502 instead of running twice.
   */
  private mayResendFresh(): boolean {
    return this.reused && !this.sawResponseByte && this.req !== undefined && !this.req.body && IDEMPOTENT_METHODS.has(this.req.method);
  }

  /** Hands the request to a fresh connection when mayResendFresh allows it; true when it did. */
  private resentFresh(): boolean {
    if (!this.mayResendFresh()) return false;
    const req = this.req!;
    const h = this.handler!;
    this.handler = undefined;
    this.req = undefined;
    busy.delete(this);
    this.pool.dispatchFresh(req, h);
    return true;
  }

  private readonly onSocketError = (err: Error): void => {
    this.closed = true;
    this.pool.dropIdle(this);
    if (!this.handler) return;
    // A reused connection the server closed while idle, before any response byte: retry once fresh.
    if (this.resentFresh()) return;
    const code = (err as { code?: string }).code;
    if (neverReadByWorker({ errorCode: code, sawResponseByte: this.sawResponseByte, requestBytes: this.requestBytes })) {
      this.fail(new UpstreamError(err.message, code!, true));
      return;
    }
    this.fail(err);
  };

  private readonly onSocketClose = (): void => {
    this.closed = true;
    this.pool.dropIdle(this);
    if (!this.handler) return;
    if (this.state === State.BodyUntilClose) {
      this.complete();
      return;
    }
    if (this.resentFresh()) return;
    this.fail(new UpstreamError(`upstream ${this.pool.address} closed the connection mid-response`, 'ECONNRESET'));
  };
}

/** Connections to one worker address. */
export class UpstreamPool {
  private readonly idle: UpstreamConnection[] = [];
  private readonly host: string;
  private readonly port: number;
  closed = false;

  constructor(
    readonly address: string,
    readonly connectTimeoutMs: number,
    readonly idleTimeoutMs: number,
  ) {
    const colon = address.lastIndexOf(':');
    const host = address.slice(0, colon);
    this.host = host.startsWith('[') ? host.slice(1, -1) : host;
    this.port = Number(address.slice(colon + 1));
  }

  /** `now`: performance.now() of the caller, when it has just read it (the data plane has). */
  dispatch(req: UpstreamRequest, handler: UpstreamHandler, now: number = performance.now()): void {
    let c = this.idle.pop();
    // Expired idle connections are closed rather than risked (the server may be closing them).
    while (c && (c.closed || now - c.idleSince > this.idleTimeoutMs)) {
      c.socket.destroy();
      c = this.idle.pop();
    }
    (c ?? new UpstreamConnection(this, this.host, this.port)).start(req, handler, now);
  }

  dispatchFresh(req: UpstreamRequest, handler: UpstreamHandler): void {
    new UpstreamConnection(this, this.host, this.port).start(req, handler);
  }

  /**
   * An upgrade request (its headers carry Connection: upgrade and Upgrade), on a connection of
   * its own: a 101 gives the socket to `handler.onUpgrade`; any other answer is an ordinary
   * response, after which the connection closes instead of going back to the pool.
   */
  dispatchUpgrade(req: UpstreamRequest, handler: UpstreamHandler): void {
    const c = new UpstreamConnection(this, this.host, this.port);
    c.upgrading = true;
    c.start(req, handler);
  }

  putIdle(c: UpstreamConnection): void {
    if (this.closed) c.socket.destroy();
    else this.idle.push(c);
  }

  dropIdle(c: UpstreamConnection): void {
    const i = this.idle.indexOf(c);
    if (i >= 0) this.idle.splice(i, 1);
  }

  /** Closes idle connections now; busy ones close when their exchange ends. */
  close(): void {
    this.closed = true;
    for (const c of this.idle.splice(0)) c.socket.destroy();
  }
}
