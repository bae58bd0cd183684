/**
 * The body of a raw-ingress request (Content-Length framed): chunks are passed on as they come
 * off the socket, never gathered. Until a reader attaches — a request waiting in the activator
 * queue — or while it pauses, the chunk in hand is held and the socket stops reading, so memory
 * per request stays at about one socket read. One listener per event, the last attached (the
 * upstream client is the only reader; a new attempt replaces a failed one's listeners). Unlike an
 * EventEmitter, an error with no listener is not thrown.
 */
import type { RequestBody } from './ingress.ts';

/** The connection side: stop and restart reading the client socket. */
export interface BodyFlowControl {
  pauseReading(): void;
  resumeReading(): void;
}

type DataListener = (chunk: Buffer) => void;
type EndListener = () => void;
type ErrorListener = (err: Error) => void;

function flowSoon(body: RawRequestBody): void {
  body.flowScheduled = false;
  body.flush();
}

export class RawRequestBody implements RequestBody {
  private onData: DataListener | undefined;
  private onEnd: EndListener | undefined;
  private onError: ErrorListener | undefined;
  private held: Buffer[] = [];
  private flowing = false;
  /** Every byte of the body has arrived. */
  private complete = false;
  /** Ended, failed or dropped: nothing more is passed on. */
  private settled = false;
  flowScheduled = false;
  /** Some bytes went to the reader (a retry could not resend them). */
  didRead = false;

  constructor(private readonly flow: BodyFlowControl) {}

  on(event: 'data', listener: DataListener): this;
  on(event: 'end', listener: EndListener): this;
  on(event: 'error', listener: ErrorListener): this;
  on(event: 'data' | 'end' | 'error', listener: DataListener | EndListener | ErrorListener): this {
    if (event === 'data') {
      this.onData = listener as DataListener;
      // Like a stream: a data listener starts the flow, on the next tick (after 'end'/'error' attach).
      this.flowing = true;
      if (!this.flowScheduled) {
        this.flowScheduled = true;
        process.nextTick(flowSoon, this);
      }
    } else if (event === 'end') {
      this.onEnd = listener as EndListener;
    } else {
      this.onError = listener as ErrorListener;
    }
    return this;
  }

  removeListener(event: 'data' | 'end' | 'error', listener: (...args: never[]) => void): this {
    if (event === 'data' && this.onData === listener) this.onData = undefined;
    else if (event === 'end' && this.onEnd === listener) this.onEnd = undefined;
    else if (event === 'error' && this.onError === listener) this.onError = undefined;
    return this;
  }

  pause(): this {
    if (this.flowing) {
      this.flowing = false;
      this.flow.pauseReading();
    }
    return this;
  }

  resume(): this {
    this.flowing = true;
    this.flush();
    return this;
  }

  /** Bytes from the socket (the connection never passes more than the Content-Length). */
  push(chunk: Buffer): void {
    if (this.settled) return;
    if (this.flowing && !this.flowScheduled && this.held.length === 0 && this.onData) {
      this.didRead = true;
      this.onData(chunk);
      return;
    }
    this.held.push(chunk);
    this.flow.pauseReading();
  }

  /** The last byte arrived. */
  finish(): void {
    this.complete = true;
    if (this.flowing && !this.flowScheduled && this.held.length === 0) this.end();
  }

  /** The client went away before the last byte. */
  fail(err: Error): void {
    if (this.settled) return;
    this.settled = true;
    this.held = [];
    this.onError?.(err);
  }

  /** The response ended first: the connection discards the rest; the reader hears nothing more. */
  drop(): void {
    this.settled = true;
    this.held = [];
    this.onData = this.onEnd = this.onError = undefined;
  }

  flush(): void {
    if (this.settled) return;
    while (this.flowing && this.held.length > 0) {
      const chunk = this.held.shift()!;
      this.didRead = true;
      this.onData?.(chunk);
      if (this.settled) return;
    }
    if (!this.flowing) return;
    if (this.complete) this.end();
    this.flow.resumeReading();
  }

  private end(): void {
    if (this.settled) return;
    this.settled = true;
    this.onEnd?.();
  }
}
