/**
 * The h2c leg to one worker: one HTTP/2 session per worker address, reused by every stream
 * to it (a new one after the worker's GOAWAY or a failure). Each stream is driven through the
 * same UpstreamHandler as an HTTP/1.1 exchange (the data plane's Exchange), so admission, slot
 * release, timeouts and errors follow one path. Bodies stream both ways with backpressure;
 * response trailers reach `onComplete`. Aborting (the client reset its stream or went away)
 * resets the worker's stream with CANCEL, which the worker sees as its request's abort.
 *
 * A worker that answers the connection preface with anything but HTTP/2 SETTINGS (an
 * HTTP/1.1-only runtime) fails the stream with code ORRERY_NOT_H2C. A stream the worker refused
 * before answering — RST_STREAM REFUSED_STREAM, which a draining worker's GOAWAY also gives every
 * stream it had not taken yet — fails with STREAM_REFUSED: RFC 9113 §8.7 says such a request
 * was not processed, so the data plane sends it to another worker whatever its method.
 */
import { connect, constants, type ClientHttp2Session, type ClientHttp2Stream, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http2';
import type { RequestBody } from '@orrery/raw-http';
import { UpstreamError, type UpstreamHandler } from '../proxy/http1-upstream.ts';
import { flattenHttp2Headers } from './http2-upstream-head.ts';

export interface Http2UpstreamRequest {
  headers: OutgoingHttpHeaders;
  body: RequestBody | null;
  /** The whole body, held from an earlier attempt (sent in one write; `body` is then null). */
  wholeBody?: Buffer;
  /** No response head within this → ORRERY_HEADERS_TIMEOUT. */
  timeoutMs: number;
}

const DIAL_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);

/** The error code of a stream the worker refused unprocessed (REFUSED_STREAM). */
export const STREAM_REFUSED = 'ORRERY_STREAM_REFUSED';

function ignore(): void {
  // the streams report the failure
}

export class Http2UpstreamSession {
  private session: ClientHttp2Session | undefined;
  /** The current session received the worker's SETTINGS: it speaks HTTP/2. */
  private settled = false;
  private closed = false;

  constructor(
    readonly address: string,
    private readonly connectTimeoutMs: number,
  ) {}

  private current(): ClientHttp2Session {
    const s = this.session;
    if (s && !s.closed && !s.destroyed) return s;
    const session = connect(`http://${this.address}`, { settings: { enablePush: false } });
    this.session = session;
    this.settled = false;
    session.on('error', ignore);
    // Every stream waiting for the worker's SETTINGS listens for them.
    session.setMaxListeners(0);
    session.once('remoteSettings', () => {
      if (this.session === session) this.settled = true;
    });
    session.once('close', () => {
      if (this.session === session) this.session = undefined;
    });
    session.once('goaway', () => {
      if (this.session === session) this.session = undefined;
    });
    // A session nobody uses must not keep the router (or a test) alive.
    session.unref();
    return session;
  }

  dispatch(req: Http2UpstreamRequest, handler: UpstreamHandler): void {
    if (this.closed) {
      handler.onError(new UpstreamError('the worker left the endpoint set', 'ECONNREFUSED'));
      return;
    }
    const session = this.current();
    const wasSettled = this.settled;
    let stream: ClientHttp2Stream;
    try {
      stream = session.request(req.headers, { endStream: req.body === null && req.wholeBody === undefined });
    } catch (err) {
      handler.onError(err as Error);
      return;
    }
    new Http2UpstreamExchange(this, session, stream, req, handler, wasSettled, this.connectTimeoutMs);
  }

  /** Did `session` ever receive the worker's SETTINGS (false: it does not speak h2c)? */
  spokeHttp2(session: ClientHttp2Session): boolean {
    return this.session === session ? this.settled : true;
  }

  close(): void {
    this.closed = true;
    this.session?.close();
    this.session = undefined;
  }
}

class Http2UpstreamExchange {
  private done = false;
  private timer: NodeJS.Timeout | undefined;
  private trailers: string[] | null = null;
  private gotHeaders = false;

  constructor(
    private readonly owner: Http2UpstreamSession,
    private readonly session: ClientHttp2Session,
    private readonly stream: ClientHttp2Stream,
    private readonly req: Http2UpstreamRequest,
    private readonly handler: UpstreamHandler,
    settled: boolean,
    connectTimeoutMs: number,
  ) {
    // Until the worker's SETTINGS the deadline is the dial's; after, the revision's.
    this.timer = setTimeout(this.onTimeout, settled ? req.timeoutMs : Math.min(req.timeoutMs, connectTimeoutMs));
    if (!settled) session.once('remoteSettings', this.onSettled);
    stream.on('response', this.onResponse);
    stream.on('trailers', this.onTrailers);
    stream.on('data', this.onData);
    stream.on('end', this.onEnd);
    stream.on('error', this.onError);
    stream.on('close', this.onClose);
    handler.onConnect(this.abort);
    if (req.wholeBody !== undefined) stream.end(req.wholeBody);
    const body = req.body;
    if (body !== null) {
      body.on('data', this.onBodyData);
      body.on('end', this.onBodyEnd);
      body.on('error', this.abort);
      stream.on('drain', this.onUpstreamDrain);
    }
  }

  private readonly onSettled = (): void => {
    if (this.done || this.gotHeaders) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(this.onTimeout, this.req.timeoutMs);
  };

  private readonly onTimeout = (): void => {
    this.timer = undefined;
    if (this.gotHeaders) return;
    const code = this.owner.spokeHttp2(this.session) ? 'ORRERY_HEADERS_TIMEOUT' : 'ORRERY_CONNECT_TIMEOUT';
    this.fail(new UpstreamError(code === 'ORRERY_HEADERS_TIMEOUT' ? 'no response head in time' : 'no HTTP/2 session in time', code));
  };

  private readonly onBodyData = (chunk: Buffer): void => {
    if (!this.stream.write(chunk)) this.req.body!.pause();
  };

  private readonly onBodyEnd = (): void => {
    if (!this.stream.destroyed) this.stream.end();
  };

  private readonly onUpstreamDrain = (): void => {
    this.req.body?.resume();
  };

  private readonly onResponse = (headers: IncomingHttpHeaders): void => {
    const status = Number(headers[':status']);
    // 1xx informational heads are not forwarded; the final one follows.
    if (status < 200) return;
    this.gotHeaders = true;
    clearTimeout(this.timer);
    this.timer = undefined;
    const list = flattenHttp2Headers(headers);
    if (!this.handler.onHeaders(status, list, this.resume, '')) this.stream.pause();
    // Trailers-only (a gRPC status without messages): the head ends the response.
    if (this.stream.endAfterHeaders) this.complete();
  };

  private readonly resume = (): void => {
    this.stream.resume();
  };

  private readonly onTrailers = (headers: IncomingHttpHeaders): void => {
    this.trailers = flattenHttp2Headers(headers);
  };

  private readonly onData = (chunk: Buffer): void => {
    if (this.done) return;
    if (!this.handler.onData(chunk)) this.stream.pause();
  };

  private readonly onEnd = (): void => {
    if (this.gotHeaders) this.complete();
  };

  private readonly onError = (err: Error): void => {
    this.fail(this.translate(err));
  };

  private readonly onClose = (): void => {
    if (this.done) return;
    const code = this.stream.rstCode;
    if (this.gotHeaders && this.stream.readableEnded && code === constants.NGHTTP2_NO_ERROR) {
      this.complete();
      return;
    }
    this.fail(this.translate(new UpstreamError(`the worker closed the stream (HTTP/2 error code ${code ?? 'none'})`, 'ORRERY_STREAM_RESET')));
  };

  readonly abort = (err?: Error): void => {
    if (this.done) return;
    if (!this.stream.destroyed) this.stream.close(constants.NGHTTP2_CANCEL);
    this.fail(err ?? new Error('aborted'));
  };

  /** A session-level failure names the dial error (the data plane retries and quarantines on those). */
  private translate(err: Error): Error {
    if (!this.gotHeaders && this.stream.rstCode === constants.NGHTTP2_REFUSED_STREAM) {
      return new UpstreamError(`the worker at ${this.owner.address} refused the stream unprocessed (REFUSED_STREAM)`, STREAM_REFUSED);
    }
    const cause = (err as { cause?: { code?: string } }).cause;
    const code = cause?.code ?? (err as { code?: string }).code;
    if (code !== undefined && DIAL_CODES.has(code) && !this.gotHeaders) return new UpstreamError(`connect to ${this.owner.address}: ${code}`, code);
    if (!this.owner.spokeHttp2(this.session)) {
      return new UpstreamError(`the worker at ${this.owner.address} does not speak HTTP/2 cleartext (h2c); gRPC needs a runtime that does (the Node runtime)`, 'ORRERY_NOT_H2C');
    }
    return err;
  }

  private complete(): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    this.handler.onComplete(this.trailers);
  }

  private fail(err: Error): void {
    if (this.done) return;
    this.done = true;
    this.cleanup();
    if (!this.stream.destroyed) this.stream.close(constants.NGHTTP2_CANCEL);
    this.handler.onError(err);
  }

  private cleanup(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    this.session.removeListener('remoteSettings', this.onSettled);
    const body = this.req.body;
    if (body !== null) {
      body.removeListener('data', this.onBodyData);
      body.removeListener('end', this.onBodyEnd);
      body.removeListener('error', this.abort);
    }
  }
}
