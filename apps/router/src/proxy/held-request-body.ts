/**
 * A small request body kept while it streams to the first worker, so that it can go whole to
 * another worker when the first refuses it draining (it ran nothing) or, on an `onWorkerLoss:
 * replay` revision (idempotent-retry.ts `mayReplayElsewhere`), died having read it. It sits
 * between the ingress body and the upstream client: chunks pass on as they come (the first
 * attempt still streams, with backpressure) and are also kept — by reference: each chunk is a
 * buffer of its own that nobody writes to again — until the answer begins (`release`), when a
 * replay can no longer happen.
 * On the HTTP/1.1 leg only bodies with a Content-Length of at most HELD_BODY_LIMIT are held, so
 * what one request keeps is bounded and known before the first byte. A gRPC call's body has no
 * length up front (HTTP/2 DATA frames until END_STREAM): it is held with `limitBytes`, and one
 * that outgrows it is let go (`complete` never becomes true: it can no longer go again).
 * A body still arriving can go again too (`resendable`): the next attempt that attaches gets what
 * is held first, then the rest as the client sends it — a client-streaming gRPC call refused
 * while its client is still sending, a POST whose worker was lost before the last byte.
 */
import type { RequestBody } from '@orrery/raw-http';

/**
 * Largest body held: 64 KiB covers the JSON of nearly every function call, and what
 * the router holds for a request in flight stays near what its sockets buffer for it anyway.
 */
export const HELD_BODY_LIMIT = 64 * 1024;

/** A body of this Content-Length is held while it streams to the first worker. */
export function heldBodyFits(contentLength: string | undefined): boolean {
  return contentLength !== undefined && Number(contentLength) <= HELD_BODY_LIMIT;
}

type DataListener = (chunk: Buffer) => void;
type EndListener = () => void;
type ErrorListener = (err: Error) => void;

export class HeldRequestBody implements RequestBody {
  private chunks: Buffer[] | undefined = [];
  private whole: Buffer | undefined;
  /** The current attempt's listeners (one per event, as the upstream client attaches them). */
  private onData: DataListener | undefined;
  private onEnd: EndListener | undefined;
  private onError: ErrorListener | undefined;
  private listening = false;
  private heldBytes = 0;
  /** The current attempt asked for a pause (its upstream's buffer is full). */
  private pausedByAttempt = false;
  /** Every byte arrived and is held: `bytes()` is the body. */
  complete = false;

  /**
   * Another attempt can send the whole body: every byte that arrived is held (all of it, when
   * `complete`; else the rest is still to come and passes on to that attempt as it arrives).
   * False once let go: the answer began, the limit was passed, or the client failed.
   */
  get resendable(): boolean {
    return this.chunks !== undefined;
  }

  /** `limitBytes`: stop holding (release) once more than this arrived; absent = the caller checked the length. */
  constructor(
    private readonly source: RequestBody,
    private readonly limitBytes?: number,
  ) {}

  on(event: 'data', listener: DataListener): this;
  on(event: 'end', listener: EndListener): this;
  on(event: 'error', listener: ErrorListener): this;
  on(event: 'data' | 'end' | 'error', listener: DataListener | EndListener | ErrorListener): this {
    if (event === 'data') this.onData = listener as DataListener;
    else if (event === 'end') this.onEnd = listener as EndListener;
    else this.onError = listener as ErrorListener;
    // The source's own listeners, once: they keep recording whoever reads. 'data' last, as it starts the flow.
    if (event === 'data' && !this.listening) {
      this.listening = true;
      this.source.on('end', this.sourceEnd);
      this.source.on('error', this.sourceError);
      this.source.on('data', this.sourceData);
    } else if (event === 'data' && this.chunks !== undefined && this.chunks.length > 0 && !this.complete) {
      this.replayHeld(listener as DataListener);
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
    this.pausedByAttempt = true;
    this.source.pause();
    return this;
  }

  resume(): this {
    this.pausedByAttempt = false;
    this.source.resume();
    return this;
  }

  /**
   * A later attempt while the body still arrives: what earlier attempts were sent goes to it
   * first, at once (at most the limit: the caller's socket buffers it), so that the live chunks
   * that follow land after it. The source may still be paused by the dead attempt's backpressure;
   * it flows again unless this attempt's own writes asked for a pause.
   */
  private replayHeld(listener: DataListener): void {
    this.pausedByAttempt = false;
    for (const chunk of [...this.chunks!]) listener(chunk);
    if (!this.pausedByAttempt) this.source.resume();
  }

  /** The whole body, once `complete` (one buffer; joined on the first call). */
  bytes(): Buffer {
    if (this.whole === undefined) {
      const c = this.chunks ?? [];
      this.whole = c.length === 1 ? c[0]! : Buffer.concat(c);
    }
    return this.whole;
  }

  /** No replay can happen any more (the answer began): keep nothing; what still arrives only passes on. */
  release(): void {
    this.chunks = undefined;
    this.whole = undefined;
    this.complete = false;
  }

  private readonly sourceData = (chunk: Buffer): void => {
    if (this.chunks !== undefined) {
      this.chunks.push(chunk);
      this.heldBytes += chunk.length;
      if (this.limitBytes !== undefined && this.heldBytes > this.limitBytes) this.release();
    }
    this.onData?.(chunk);
  };

  private readonly sourceEnd = (): void => {
    if (this.chunks !== undefined) this.complete = true;
    this.onEnd?.();
  };

  private readonly sourceError = (err: Error): void => {
    this.release();
    this.onError?.(err);
  };
}
