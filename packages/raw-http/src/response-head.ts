/**
 * The raw ingress' response head, byte for byte what node's ServerResponse writes for
 * `writeHead(status, statusText, flatHeaders)` on an HTTP/1.1 request: the status line, the
 * headers as given (validated as node validates them), `Date` unless given, `Connection:
 * keep-alive` + `Keep-Alive: timeout=N` or `Connection: close`, and the framing — a given
 * Content-Length is kept, a response that cannot have a body (HEAD, 1xx, 204, 304) gets none,
 * anything else is chunked. Pure; the caller supplies the date and the connection state.
 */
import { STATUS_CODES } from 'node:http';

/** Where the framing decision goes (the raw exchange itself, to avoid an object per response). */
export interface ResponseFraming {
  /** Body bytes must be sent as chunks (and `0\r\n\r\n` at the end). */
  chunked: boolean;
  /** The response may carry a body; writes are dropped otherwise (as node does). */
  hasBody: boolean;
  /** The connection closes after this response. */
  close: boolean;
}

export interface ResponseHeadContext {
  /** The request was HEAD: no body, whatever the headers say. */
  headRequest: boolean;
  /** The connection may stay open after this response (the client did not ask to close). */
  keepAlive: boolean;
  /** The idle keep-alive timeout in ms, announced as `Keep-Alive: timeout=<seconds>`. */
  keepAliveTimeoutMs: number;
  /** The `Date` header value (http-date.ts). */
  date: string;
}

/* node's own checks (lib/_http_common.js): a token for names, no CTLs but HTAB in values. */
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const CONNECTION_CLOSE = /(?:^|\W)close(?:$|\W)/i;
const TE_CHUNKED = /(?:^|\W)chunked(?:$|\W)/i;

export class InvalidResponseHeadError extends Error {
  readonly code = 'ORRERY_INVALID_RESPONSE_HEAD';
}

export function buildResponseHead(status: number, statusText: string | undefined, headers: readonly string[], ctx: ResponseHeadContext, out: ResponseFraming): string {
  if (!Number.isInteger(status) || status < 100 || status > 999) throw new InvalidResponseHeadError(`invalid status code ${status}`);
  const text = statusText ?? STATUS_CODES[status] ?? 'unknown';
  if (INVALID_VALUE.test(text)) throw new InvalidResponseHeadError('invalid character in the status text');
  if (headers.length % 2 !== 0) throw new InvalidResponseHeadError('headers must be a flat [name, value, …] list');

  let head = `HTTP/1.1 ${status} ${text}\r\n`;
  let hasDate = false;
  let hasLength = false;
  let hasTe = false;
  let chunked = false;
  let connectionGiven = false;
  let close = !ctx.keepAlive;
  for (let i = 0; i < headers.length; i += 2) {
    const name = headers[i]!;
    const value = headers[i + 1]!;
    if (!TOKEN.test(name)) throw new InvalidResponseHeadError(`invalid header name ${JSON.stringify(name)}`);
    if (INVALID_VALUE.test(value)) throw new InvalidResponseHeadError(`invalid character in header ${name}`);
    head += `${name}: ${value}\r\n`;
    switch (name.length) {
      case 4:
        if (name.toLowerCase() === 'date') hasDate = true;
        break;
      case 10:
        if (name.toLowerCase() === 'connection') {
          connectionGiven = true;
          close = CONNECTION_CLOSE.test(value);
        }
        break;
      case 14:
        if (name.toLowerCase() === 'content-length') hasLength = true;
        break;
      case 17:
        if (name.toLowerCase() === 'transfer-encoding') {
          hasTe = true;
          chunked = TE_CHUNKED.test(value);
        }
        break;
    }
  }
  const hasBody = !ctx.headRequest && status !== 204 && status !== 304 && !(status >= 100 && status <= 199);
  if (!hasDate) head += `Date: ${ctx.date}\r\n`;
  if (chunked && (status === 204 || status === 304)) {
    // node: a chunked 204/304 sends no zero chunk and closes (a proxy could misread it otherwise).
    chunked = false;
    close = true;
  }
  if (!connectionGiven) {
    if (close) head += 'Connection: close\r\n';
    else {
      head += 'Connection: keep-alive\r\n';
      if (ctx.keepAliveTimeoutMs > 0) head += `Keep-Alive: timeout=${Math.floor(ctx.keepAliveTimeoutMs / 1000)}\r\n`;
    }
  }
  if (!hasLength && !hasTe) {
    if (hasBody) {
      head += 'Transfer-Encoding: chunked\r\n';
      chunked = true;
    } else {
      chunked = false;
    }
  }
  out.chunked = chunked && hasBody;
  out.hasBody = hasBody;
  out.close = close;
  return `${head}\r\n`;
}
