import type { ServerResponse } from 'node:http';
import { WORKER_DRAINING_HEADER } from '@orrery/sdk';
import { drained } from './drained.ts';

const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade']);

type Read = ReadableStreamReadResult<Uint8Array>;
const NOT_YET = Symbol('not yet');

/**
 * Sends a Web `Response` on a Node response. What the body has ready in this turn of the event
 * loop goes out with the head: a body that is complete at once (a string, bytes, JSON — most
 * functions' answers) is one write with a Content-Length instead of a chunked head, a chunk
 * and a terminator, which also lets the router forward it as one read and one write. A body
 * that is not ready in this turn gets its head at once (flushed, so the client sees the first
 * byte even if the body is slow), then the body chunk by chunk with backpressure. Resolves when
 * the body is done or the client went away.
 */
export async function writeWebResponse(res: ServerResponse, response: Response, opts: { head?: boolean; extraHeaders?: Record<string, string>; http2?: boolean } = {}): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    // HTTP/2 refuses connection-specific fields (RFC 9113 §8.2.2) a handler written for HTTP/1.1 may set.
    if (opts.http2 && CONNECTION_SPECIFIC.has(name)) return;
    // The runtime's own "not run here" signal: a function that sent it would make the router
    // quarantine its worker and send the request, which did run, to another one.
    if (name === WORKER_DRAINING_HEADER) return;
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  Object.assign(headers, opts.extraHeaders);
  // HTTP/2 has no reason phrase.
  const reason = (!opts.http2 && response.statusText) || undefined;
  // The handler's own framing is kept; only an unframed body gets the length we counted.
  const framed = response.headers.has('content-length') || response.headers.has('transfer-encoding');
  const writeHead = (length?: number) => res.writeHead(response.status, reason, length === undefined || framed ? headers : { ...headers, 'content-length': String(length) });

  if (!response.body || opts.head) {
    writeHead();
    res.end();
    await response.body?.cancel();
    return;
  }
  const reader = response.body.getReader();
  let clientGone = false;
  const onClose = () => {
    clientGone = true;
    reader.cancel().catch(() => undefined);
  };
  res.once('close', onClose);
  try {
    let pending = reader.read();
    const first = await settledThisTurn(pending);
    if (first === NOT_YET) {
      writeHead();
      res.flushHeaders();
    } else if (first.done) {
      writeHead(0);
      res.end();
      return;
    } else {
      pending = reader.read();
      const second = await settledThisTurn(pending);
      const size = byteSize(first.value);
      if (second !== NOT_YET && second.done && size !== undefined) {
        writeHead(size);
        res.end(first.value);
        return;
      }
      // Not flushed: node sends the head with the first chunk. The second read, settled or not,
      // is `pending`: the loop below takes it.
      writeHead();
      if (clientGone) return;
      if (!res.write(first.value)) await drained(res);
    }
    for (;;) {
      const { done, value } = await pending;
      if (done || clientGone) break;
      if (!res.write(value)) await drained(res);
      pending = reader.read();
    }
    if (!clientGone) res.end();
  } catch (err) {
    // The handler's body failed (after the head went out, or before the head could say anything
    // true): the only honest signal left is to cut the connection, so the client does not take a
    // truncated body for a whole one.
    if (!clientGone) res.destroy(err as Error);
    throw err;
  } finally {
    res.off('close', onClose);
    reader.releaseLock();
  }
}

/** The read's result if it settles before this turn's I/O is done (a body that is already there), else NOT_YET (the read stays pending). */
function settledThisTurn(read: Promise<Read>): Promise<Read | typeof NOT_YET> {
  let timer: NodeJS.Immediate | undefined;
  const later = new Promise<typeof NOT_YET>((resolve) => {
    timer = setImmediate(resolve, NOT_YET);
  });
  return Promise.race([read, later]).finally(() => clearImmediate(timer));
}

/** Bytes a chunk puts on the wire, when it is something Node writes as is. */
function byteSize(chunk: unknown): number | undefined {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk);
  if (ArrayBuffer.isView(chunk)) return chunk.byteLength;
  return undefined;
}
