/**
 * One gRPC call on an HTTP/2 stream: the runtime does the framing (grpc-framing.ts), the
 * function sees messages as bytes. Request messages arrive as an async iterable (read with
 * backpressure: the stream pauses while the function has not taken the last one), response
 * messages go out as the function returns or yields them, and the call ends with trailers
 * carrying grpc-status, grpc-message and the function's trailing metadata.
 *
 *   unary        (message, call) → bytes
 *   serverStream (message, call) → async iterable of bytes
 *   clientStream (messages, call) → bytes
 *   bidiStream   (messages, call) → async iterable of bytes
 *
 * A GrpcError from the function (@orrery/sdk) ends the call with its code; any other throw is
 * 2 UNKNOWN (details in the worker log, not the answer).
 */
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { GrpcError, GrpcStatus } from '@orrery/sdk';
import type { Logger } from '@orrery/log';
import type { FunctionContext } from '../function-context.ts';
import type { GrpcMethod } from './grpc-export.ts';
import { encodeMessage, GrpcFramingError, MessageDeframer } from './grpc-framing.ts';
import { drained } from '../http/drained.ts';

/** The second argument of every gRPC method. */
export interface GrpcCall {
  /** `/package.Service/Method`. */
  method: string;
  /** The :authority the call was sent to (through the router: the worker's address; the client's Host is X-Forwarded-Host). */
  authority: string | undefined;
  /** The request's metadata: its headers without pseudo-headers (binary `-bin` values stay base64). */
  metadata: Headers;
  /** Aborts when the client cancels, the deadline passes or the worker drains away. */
  signal: AbortSignal;
  /** The client's deadline (epoch ms), from grpc-timeout. */
  deadline: number | undefined;
  /** Response headers (initial metadata): effective until the first message is sent. */
  setHeader(name: string, value: string): void;
  /** Trailing metadata sent with the status. */
  setTrailer(name: string, value: string): void;
  ctx: FunctionContext;
}

/** An ending status (code 0 = OK). */
export interface GrpcOutcome {
  code: number;
  message: string;
}

/** Buffered request messages beyond this pause the stream until the function takes some. */
const INBOX_HIGH_WATER = 16;

/** grpc-message is percent-encoded UTF-8. */
export function encodeGrpcMessage(message: string): string {
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** A trailers-only answer: no call ran (unknown method, queue full, draining…). */
export function refuseGrpc(stream: ServerHttp2Stream, code: number, message: string): void {
  if (stream.destroyed || stream.headersSent) return;
  stream.respond({ ':status': 200, 'content-type': 'application/grpc', 'grpc-status': String(code), 'grpc-message': encodeGrpcMessage(message) }, { endStream: true });
}

/** Request messages as an async iterable, fed by the stream and read at the function's pace. */
class Inbox implements AsyncIterable<Uint8Array> {
  private readonly queue: Uint8Array[] = [];
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly stream: ServerHttp2Stream,
    maxMessageBytes: number,
    onError: (err: Error) => void,
  ) {
    const deframer = new MessageDeframer(maxMessageBytes);
    stream.on('data', (chunk: Buffer) => {
      // After a framing error the rest of the body means nothing.
      if (this.failure) return;
      try {
        for (const m of deframer.push(chunk)) this.queue.push(m);
      } catch (err) {
        this.fail(err as Error);
        onError(err as Error);
        return;
      }
      if (this.queue.length >= INBOX_HIGH_WATER) stream.pause();
      this.notify();
    });
    stream.on('end', () => {
      if (this.failure) return;
      try {
        deframer.finish();
        this.ended = true;
      } catch (err) {
        this.fail(err as Error);
        onError(err as Error);
      }
      this.notify();
    });
  }

  fail(err: Error): void {
    this.failure ??= err;
    this.notify();
  }

  private notify(): void {
    const w = this.wake;
    this.wake = undefined;
    w?.();
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    for (;;) {
      if (this.failure) throw this.failure;
      const m = this.queue.shift();
      if (m !== undefined) {
        if (this.queue.length < INBOX_HIGH_WATER / 2) this.stream.resume();
        return { done: false, value: m };
      }
      if (this.ended) return { done: true, value: undefined };
      await new Promise<void>((r) => (this.wake = r));
    }
  }

  [Symbol.asyncIterator](): AsyncIterator<Uint8Array> {
    return { next: () => this.next() };
  }

  /** Exactly one message (unary and server-streaming requests). */
  async single(): Promise<Uint8Array> {
    const first = await this.next();
    if (first.done) throw new GrpcError(GrpcStatus.INTERNAL, 'the request has no message; a unary or server-streaming call sends exactly one');
    const more = await this.next();
    if (!more.done) throw new GrpcError(GrpcStatus.INTERNAL, 'the request has more than one message; a unary or server-streaming call sends exactly one');
    return first.value;
  }
}

/**
 * A GrpcError of @orrery/sdk — or of another copy of it, or the function's own class of that
 * name: recognised by shape, since a bundled function does not share the runtime's class.
 */
export function asGrpcError(e: unknown): { code: number; message: string; trailers?: Record<string, unknown> } | undefined {
  if (e instanceof GrpcError) return e;
  if (!(e instanceof Error) || e.name !== 'GrpcError') return undefined;
  const code = (e as { code?: unknown }).code;
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 1 || code > 16) return undefined;
  const trailers = (e as { trailers?: unknown }).trailers;
  return { code, message: e.message, trailers: trailers !== null && typeof trailers === 'object' ? (trailers as Record<string, unknown>) : undefined };
}

function isBytes(v: unknown): v is Uint8Array {
  return v instanceof Uint8Array;
}

export interface RunGrpcOptions {
  stream: ServerHttp2Stream;
  headers: IncomingHttpHeaders;
  path: string;
  method: GrpcMethod;
  ctx: FunctionContext;
  signal: AbortSignal;
  deadline: number | undefined;
  maxMessageBytes: number;
  log: Logger;
}

/** Runs the method and answers the stream; resolves with the status sent (or 1 CANCELLED when the client went away). */
export async function runGrpcCall(o: RunGrpcOptions): Promise<GrpcOutcome> {
  const { stream } = o;
  const head: OutgoingHttpHeaders = { ':status': 200, 'content-type': 'application/grpc' };
  const trailers: Record<string, string> = {};
  let headSent = false;
  /** The status went out (the function may still be running): nothing more is sent. */
  let finished = false;
  const sendHead = () => {
    if (headSent || stream.destroyed) return;
    headSent = true;
    stream.respond(head, { waitForTrailers: true });
  };
  const metadata = new Headers();
  for (const [name, value] of Object.entries(o.headers)) {
    if (name.startsWith(':') || value === undefined) continue;
    try {
      for (const v of Array.isArray(value) ? value : [value]) metadata.append(name, v);
    } catch {
      // a name the Fetch standard refuses: not metadata a function could use
    }
  }
  const call: GrpcCall = {
    method: o.path,
    authority: typeof o.headers[':authority'] === 'string' ? o.headers[':authority'] : undefined,
    metadata,
    signal: o.signal,
    deadline: o.deadline,
    setHeader: (name, value) => {
      if (!headSent) head[name.toLowerCase()] = value;
    },
    setTrailer: (name, value) => {
      trailers[name.toLowerCase()] = value;
    },
    ctx: o.ctx,
  };
  let framingError: Error | undefined;
  const inbox = new Inbox(stream, o.maxMessageBytes, (err) => (framingError ??= err));
  const send = async (message: unknown) => {
    if (!isBytes(message)) throw new GrpcError(GrpcStatus.INTERNAL, `the function produced a ${message === null ? 'null' : typeof message} instead of a Uint8Array message`);
    if (message.length > o.maxMessageBytes) throw new GrpcError(GrpcStatus.RESOURCE_EXHAUSTED, `the response message of ${message.length} bytes exceeds the ${o.maxMessageBytes}-byte limit`);
    if (finished || o.signal.aborted || stream.destroyed) return;
    sendHead();
    if (!stream.write(encodeMessage(message))) await drained(stream);
  };
  const work = (async (): Promise<GrpcOutcome> => {
    try {
      const kind = o.method.kind;
      if (kind === 'unary') {
        await send(await o.method.fn(await inbox.single(), call));
      } else if (kind === 'clientStream') {
        await send(await o.method.fn(inbox, call));
      } else {
        const input = kind === 'serverStream' ? await inbox.single() : inbox;
        const out = o.method.fn(input, call) as AsyncIterable<unknown> | Iterable<unknown> | null | undefined;
        if (out === null || out === undefined || (typeof (out as AsyncIterable<unknown>)[Symbol.asyncIterator] !== 'function' && typeof (out as Iterable<unknown>)[Symbol.iterator] !== 'function')) {
          throw new GrpcError(GrpcStatus.INTERNAL, `the ${kind} method must return an (async) iterable of Uint8Array messages, e.g. an async generator`);
        }
        for await (const m of out) {
          if (o.signal.aborted) break;
          await send(m);
        }
      }
      if (framingError) throw framingError;
      return { code: 0, message: '' };
    } catch (err) {
      const e = framingError ?? err;
      const g = asGrpcError(e);
      if (g) {
        for (const [k, v] of Object.entries(g.trailers ?? {})) trailers[k.toLowerCase()] = String(v);
        return { code: g.code, message: g.message };
      }
      if (e instanceof GrpcFramingError) return { code: e.status, message: e.message };
      if (!o.signal.aborted) o.log.error('grpc method threw', { method: o.path, error: e instanceof Error ? (e.stack ?? e.message) : String(e) });
      return { code: GrpcStatus.UNKNOWN, message: 'the function threw an error; see the worker log' };
    }
  })();
  // A cancel or the deadline answers at once; the function learns it from call.signal (and the
  // request iterable throws), and its slot is held until it has settled (worker-server.ts).
  const aborted = new Promise<void>((resolve) => {
    if (o.signal.aborted) resolve();
    else o.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  const onAbort = () => inbox.fail(new GrpcError(GrpcStatus.CANCELLED, 'the call was cancelled'));
  o.signal.addEventListener('abort', onAbort, { once: true });
  let outcome = await Promise.race([work, aborted.then(() => undefined)]);
  if (o.signal.aborted || outcome === undefined) {
    const reason = o.signal.reason as { grpcStatus?: GrpcOutcome } | undefined;
    outcome = reason?.grpcStatus ?? { code: GrpcStatus.CANCELLED, message: 'the call was cancelled' };
  }
  finished = true;
  answer(stream, head, headSent, trailers, outcome);
  await work;
  o.signal.removeEventListener('abort', onAbort);
  return outcome;
}

function answer(stream: ServerHttp2Stream, head: OutgoingHttpHeaders, headSent: boolean, trailers: Record<string, string>, outcome: GrpcOutcome): void {
  if (stream.destroyed || stream.closed) return;
  const status: Record<string, string> = { ...trailers, 'grpc-status': String(outcome.code) };
  if (outcome.message !== '') status['grpc-message'] = encodeGrpcMessage(outcome.message);
  if (!headSent) {
    // Trailers-only: the status in the one header block.
    stream.respond({ ...head, ...status }, { endStream: true });
    return;
  }
  stream.once('wantTrailers', () => {
    try {
      stream.sendTrailers(status);
    } catch {
      // node:http2 is loaded by now (this is an HTTP/2 stream); a static import would load it at every worker's start.
      stream.close(process.getBuiltinModule('node:http2').constants.NGHTTP2_INTERNAL_ERROR);
    }
  });
  stream.end();
}
