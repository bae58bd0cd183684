/**
 * One request on a raw-ingress connection, seen by the data plane as both its request and its
 * response (one object per request instead of node's IncomingMessage + ServerResponse pair).
 * The response head is held until the first body bytes or the end, so a small response goes
 * out in a single write — but not longer than the current turn of the event loop: a streamed
 * response (Server-Sent Events, a long poll) whose first bytes come later still sends its head
 * at once, or its client would wait for headers as long as for the first event.
 */
import { afterThisRead } from './after-this-read.ts';
import type { IngressRequest, IngressResponse, ResponseListener } from './ingress.ts';
import { httpDate } from './http-date.ts';
import type { RawRequestBody } from './raw-request-body.ts';
import type { ParsedHead } from './request-head-parser.ts';
import { buildResponseHead, type ResponseFraming } from './response-head.ts';
import { SlotList, type Slotted } from './slot-list.ts';

/** What the exchange needs from its connection. */
export interface RawExchangeConnection {
  readonly remoteAddress: string;
  readonly keepAliveHintMs: number;
  /** The connection will close after this response (the client asked, or the server is closing). */
  readonly closeAfter: boolean;
  /** Writes prefix + data + suffix as one write where possible; false when the socket buffer is full. */
  send(prefix: string, data: Buffer | undefined, suffix: string): boolean;
  responseEnded(ex: RawExchange, close: boolean): void;
  destroy(): void;
}

/** Exchanges whose head is written but not sent yet: sent together after this I/O turn (one setImmediate for all). */
const heldHeads = new SlotList<RawExchange>();
let checkScheduled = false;
let flushScheduled = false;
function sendHeldHeads(): void {
  flushScheduled = false;
  heldHeads.forEach((ex) => {
    ex.sendHeldHead();
    // One that ended or was destroyed meanwhile still holds its (never to be sent) head.
    heldHeads.delete(ex);
  });
}
/**
 * Right after the callback that wrote heads (the end of the socket read being handled, else the
 * next tick: after-this-read.ts): the common response (head and body from one upstream read) has
 * already gone out with its body, and then no setImmediate — and no extra turn of the event loop
 * — is paid for it. A head still held waits for the end of the turn.
 */
function scheduleFlushIfHeld(): void {
  checkScheduled = false;
  if (heldHeads.size === 0 || flushScheduled) return;
  flushScheduled = true;
  setImmediate(sendHeldHeads);
}

export class RawExchange implements IngressRequest, IngressResponse, ResponseFraming, Slotted {
  readonly method: string;
  readonly url: string;
  readonly rawHeaders: string[];
  body: RawRequestBody | null = null;
  headersSent = false;
  ended = false;
  destroyed = false;
  listener: ResponseListener | undefined;
  /** A write returned false: the listener hears `onDrain` when the socket drains. */
  needDrain = false;
  chunked = false;
  hasBody = true;
  close = false;
  private head: string | undefined;
  /** Its place in heldHeads while its head waits for the end of the turn. */
  slotIndex = -1;

  constructor(
    private readonly conn: RawExchangeConnection,
    parsed: ParsedHead,
  ) {
    this.method = parsed.method;
    this.url = parsed.target;
    this.rawHeaders = parsed.rawHeaders;
  }

  get remoteAddress(): string {
    return this.conn.remoteAddress;
  }

  get readableDidRead(): boolean {
    return this.body?.didRead ?? false;
  }

  setListener(listener: ResponseListener | undefined): void {
    this.listener = listener;
  }

  writeHead(status: number, statusText: string | undefined, headers: string[]): void {
    if (this.headersSent) throw new Error('the response head was already written');
    const conn = this.conn;
    // Builds (and validates) first: on a throw nothing is sent and headersSent stays false.
    this.head = buildResponseHead(status, statusText, headers, { headRequest: this.method === 'HEAD', keepAlive: !conn.closeAfter, keepAliveTimeoutMs: conn.keepAliveHintMs, date: httpDate() }, this);
    this.headersSent = true;
    heldHeads.add(this);
    if (!checkScheduled) {
      checkScheduled = true;
      afterThisRead(scheduleFlushIfHeld);
    }
  }

  /** The head alone, when no body bytes came in the turn it was written in. */
  sendHeldHead(): void {
    if (this.head === undefined || this.ended || this.destroyed) return;
    this.send(undefined, false);
  }

  write(chunk: Buffer): boolean {
    if (this.ended || this.destroyed) return true;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    const ok = this.send(chunk, false);
    if (!ok) this.needDrain = true;
    return ok;
  }

  end(lastChunk?: Buffer | string): void {
    if (this.ended || this.destroyed) return;
    if (!this.headersSent) this.writeHead(200, undefined, []);
    const data = typeof lastChunk === 'string' ? Buffer.from(lastChunk, 'utf8') : lastChunk;
    this.ended = true;
    if (this.close || this.conn.closeAfter) {
      // The socket closes once this is out: the write first.
      this.send(data, true);
      this.conn.responseEnded(this, this.close);
      return;
    }
    // Kept alive: the connection's bookkeeping first, the write last — work after a write delays
    // the client it woke when both share a CPU (performance.md, "The router at 1 connection,
    // where the added latency goes").
    // A pipelined next request is parsed on the next tick, after this write.
    this.conn.responseEnded(this, false);
    this.send(data, true);
  }

  destroy(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    this.conn.destroy();
  }

  /** The connection closed under an unfinished exchange (client abort). */
  connectionClosed(): void {
    if (this.ended) return;
    this.destroyed = true;
    // Mark first, then tell: the data plane reads `destroyed` to count a 499.
    this.body?.fail(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    this.listener?.onClientClose();
  }

  private send(data: Buffer | undefined, end: boolean): boolean {
    let prefix = this.head ?? '';
    if (this.head !== undefined) {
      this.head = undefined;
      heldHeads.delete(this);
    }
    let suffix = '';
    if (data !== undefined && data.length > 0 && this.hasBody) {
      if (this.chunked) {
        prefix += `${data.length.toString(16)}\r\n`;
        suffix = end ? '\r\n0\r\n\r\n' : '\r\n';
      }
    } else {
      // No body bytes (or a response that cannot have any: node drops them too).
      data = undefined;
      if (end && this.chunked) suffix = '0\r\n\r\n';
    }
    return this.conn.send(prefix, data, suffix);
  }
}
