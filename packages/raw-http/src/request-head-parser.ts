/**
 * A strict HTTP/1.1 request-head parser for the raw ingress (raw-connection.ts). It accepts only
 * the common request, and only in a shape node's own parser (llhttp) reads the same way:
 *
 *   METHOD SP /origin-form SP HTTP/1.1 CRLF      (a known method, strict target bytes)
 *   (field-name ":" OWS field-value OWS CRLF)*   (token names; VCHAR, SP, HTAB, obs-text values)
 *   CRLF
 *
 * with exactly one Host, at most one digits-only Content-Length, and no Transfer-Encoding,
 * Upgrade or Expect. Anything else — HTTP/1.0, chunked bodies, obs-fold, bare CR or LF, absolute
 * or asterisk targets, duplicate Content-Length, a head of 16 KiB or more — is not parsed here:
 * the answer is `handover`, and node's server takes the connection and decides (usually 400;
 * a second Host or a Transfer-Encoding other than one `chunked` is refused after node's parser
 * by request-framing.ts, the same for both ingresses). So request-smuggling safety for anything
 * unusual stays with node's hardened parser; this one only has to be a strict subset of it.
 *
 * Pure: bytes in, a decision out. It is called again from the start when more bytes arrive
 * (heads are small; see raw-connection.ts for when it is called).
 */

/** Node's default --max-http-header-size; a head this large or larger is node's to judge. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** Header lines beyond this go to node (which keeps up to 2000; real requests carry ~10). */
export const MAX_HEADER_LINES = 200;

export interface ParsedHead {
  kind: 'head';
  method: string;
  /** Origin-form request target, e.g. `/ns/fn/path?q=1`. */
  target: string;
  /** [name, value, …] as received (name case kept, value without surrounding whitespace), like node's rawHeaders. */
  rawHeaders: string[];
  /** Request body length in bytes (0: none). */
  contentLength: number;
  /** The client sent `Connection: close`: close after this response. */
  close: boolean;
  /** Bytes the head took, blank line included (the body or the next request starts here). */
  headBytes: number;
}

export type HandoverReason =
  | 'method'
  | 'target'
  | 'version'
  | 'line_ending'
  | 'header_name'
  | 'header_value'
  | 'obs_fold'
  | 'host'
  | 'content_length'
  | 'transfer_encoding'
  | 'upgrade'
  | 'expect'
  | 'connection'
  | 'too_many_headers'
  | 'too_large'
  /** Set by raw-connection.ts, never by the parser: the HTTP/2 preface, for the HTTP/2 server. */
  | 'h2_preface'
  /** Set by raw-connection.ts: a request the ingress's `route` leaves to node:http. */
  | 'route';

export interface Handover {
  kind: 'handover';
  reason: HandoverReason;
}

export interface Incomplete {
  kind: 'incomplete';
}

export type HeadParseResult = ParsedHead | Handover | Incomplete;

export const INCOMPLETE: Incomplete = Object.freeze({ kind: 'incomplete' });

/* Methods llhttp knows that need nothing special; CONNECT (authority-form), TRACE and the rest go to node. */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']);

const CR = 0x0d;
const LF = 0x0a;
const SP = 0x20;
const HTAB = 0x09;
const COLON = 0x3a;

function table(chars: string, ranges: Array<[number, number]> = []): Uint8Array {
  const t = new Uint8Array(256);
  for (let i = 0; i < chars.length; i++) t[chars.charCodeAt(i)] = 1;
  for (const [a, b] of ranges) for (let c = a; c <= b; c++) t[c] = 1;
  return t;
}

const ALNUM: Array<[number, number]> = [
  [0x30, 0x39],
  [0x41, 0x5a],
  [0x61, 0x7a],
];
/** RFC 9110 tchar. */
const TCHAR = table("!#$%&'*+-.^_`|~", ALNUM);
/** RFC 3986 pchar plus "/" and "?" (unreserved, sub-delims, ":", "@", "%"): stricter than llhttp, never looser. */
const TARGET = table("-._~!$&'()*+,;=:@/?%", ALNUM);
/** field-vchar (VCHAR and obs-text) plus SP and HTAB inside a value. */
const VALUE = table('\t ', [
  [0x21, 0x7e],
  [0x80, 0xff],
]);

function handover(reason: HandoverReason): Handover {
  return { kind: 'handover', reason };
}

/** Lower-case ASCII compare of buf[start, start+lower.length) with `lower`. */
function equalsLower(buf: Uint8Array, start: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) if ((buf[start + i]! | 0x20) !== lower.charCodeAt(i)) return false;
  return true;
}

/** Connection tokens: close → 1, upgrade → handover (-1), anything else 0; a malformed list → -1. */
function connectionValue(value: string): number {
  // What most clients send on every request (undici, browsers): no list to split.
  if (value.length === 10 && value.toLowerCase() === 'keep-alive') return 0;
  let close = 0;
  for (const part of value.split(',')) {
    const token = part.trim();
    if (token === '') continue;
    for (let i = 0; i < token.length; i++) if (!TCHAR[token.charCodeAt(i)]) return -1;
    const lower = token.toLowerCase();
    if (lower === 'close') close = 1;
    else if (lower === 'upgrade') return -1;
  }
  return close;
}

/**
 * Parses the request head at the start of `buf`. `incomplete` means "valid so far, send more";
 * a head not complete within `maxHeadBytes` is a handover (`too_large`).
 */
/** The head has not ended within the bytes at hand: wait for more, unless there is no room left. */
function unfinished(n: number, maxHeadBytes: number): HeadParseResult {
  return n >= maxHeadBytes ? handover('too_large') : INCOMPLETE;
}

export function parseRequestHead(buf: Uint8Array, maxHeadBytes = MAX_HEAD_BYTES): HeadParseResult {
  const n = buf.length;
  const text = Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);

  // Request line. Method: upper-case token from the known list.
  let p = 0;
  while (p < n && buf[p] !== SP) {
    const c = buf[p]!;
    if (c < 0x41 || c > 0x5a || p >= 7) return handover('method');
    p++;
  }
  if (p === n) return unfinished(n, maxHeadBytes);
  const method = text.toString('latin1', 0, p);
  if (!METHODS.has(method)) return handover('method');
  p++;

  // Target: origin-form only.
  const targetStart = p;
  if (p < n && buf[p] !== 0x2f /* / */) return handover('target');
  while (p < n && buf[p] !== SP) {
    if (!TARGET[buf[p]!]) return handover('target');
    p++;
  }
  if (p === n) return unfinished(n, maxHeadBytes);
  const target = text.toString('latin1', targetStart, p);
  p++;

  // "HTTP/1.1" CRLF, byte for byte.
  const version = 'HTTP/1.1\r\n';
  for (let i = 0; i < version.length; i++, p++) {
    if (p === n) return unfinished(n, maxHeadBytes);
    if (buf[p] !== version.charCodeAt(i)) return handover(i < 8 || (i === 8 && buf[p] !== LF) ? 'version' : 'line_ending');
  }

  // Each name and value is its own string, not a cut of one string of the whole head: V8 keeps a
  // cut as a view of its parent, and a value held past the request (a sticky key in the hot-key
  // tracker, a trace id in an unexported span) would keep the whole head (up to 16 KiB) alive.
  const rawHeaders: string[] = [];
  let contentLength = -1;
  let close = false;
  let hosts = 0;
  for (;;) {
    if (p === n) return unfinished(n, maxHeadBytes);
    const first = buf[p]!;
    if (first === CR) {
      if (p + 1 === n) return unfinished(n, maxHeadBytes);
      if (buf[p + 1] !== LF) return handover('line_ending');
      const headBytes = p + 2;
      if (headBytes >= maxHeadBytes) return handover('too_large');
      if (hosts !== 1) return handover('host');
      return { kind: 'head', method, target, rawHeaders, contentLength: contentLength < 0 ? 0 : contentLength, close, headBytes };
    }
    if (first === SP || first === HTAB) return handover('obs_fold');
    if (rawHeaders.length >= MAX_HEADER_LINES * 2) return handover('too_many_headers');

    // field-name ":"
    const nameStart = p;
    while (p < n && buf[p] !== COLON) {
      if (!TCHAR[buf[p]!]) return buf[p] === LF || buf[p] === CR ? handover('line_ending') : handover('header_name');
      p++;
    }
    if (p === n) return unfinished(n, maxHeadBytes);
    const nameEnd = p;
    if (nameEnd === nameStart) return handover('header_name');
    p++;

    // OWS field-value OWS CRLF
    while (p < n && (buf[p] === SP || buf[p] === HTAB)) p++;
    const valueStart = p;
    let valueEnd = p;
    while (p < n && buf[p] !== CR) {
      const c = buf[p]!;
      if (!VALUE[c]) return c === LF ? handover('line_ending') : handover('header_value');
      p++;
      if (c !== SP && c !== HTAB) valueEnd = p;
    }
    if (p === n || p + 1 === n) return unfinished(n, maxHeadBytes);
    if (buf[p + 1] !== LF) return handover('line_ending');
    p += 2;

    const name = text.toString('latin1', nameStart, nameEnd);
    const value = text.toString('latin1', valueStart, valueEnd);
    rawHeaders.push(name, value);

    // The few names that change framing or the connection, found by length first.
    switch (nameEnd - nameStart) {
      case 4:
        if (equalsLower(buf, nameStart, 'host')) hosts++;
        break;
      case 6:
        if (equalsLower(buf, nameStart, 'expect')) return handover('expect');
        break;
      case 7:
        if (equalsLower(buf, nameStart, 'upgrade')) return handover('upgrade');
        break;
      case 10:
        if (equalsLower(buf, nameStart, 'connection')) {
          const v = connectionValue(value);
          if (v < 0) return handover('connection');
          if (v === 1) close = true;
        }
        break;
      case 14:
        if (equalsLower(buf, nameStart, 'content-length')) {
          // Digits only, once: a repeated (even equal) or odd value is node's to judge.
          if (contentLength >= 0 || value.length === 0 || value.length > 15) return handover('content_length');
          for (let i = 0; i < value.length; i++) {
            const c = value.charCodeAt(i);
            if (c < 0x30 || c > 0x39) return handover('content_length');
          }
          contentLength = Number(value);
        }
        break;
      case 17:
        if (equalsLower(buf, nameStart, 'transfer-encoding')) return handover('transfer_encoding');
        break;
    }
  }
}
