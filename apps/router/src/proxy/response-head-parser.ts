/**
 * The upstream leg's response head (http1-upstream.ts): the status line and the headers a worker
 * sent, as the proxy forwards them — hop-by-hop headers taken out, the framing (Content-Length,
 * chunked, until close) and the connection's fate decided. Pure: the head's text in (latin1, the
 * blank line excluded), a decision out.
 *
 * It walks the text with indexOf and compares header names by length and character codes: the
 * common response's names (Content-Type, Date, …) are never lower-cased or compared against the
 * hop-by-hop list as strings — a profile of the router put the split-and-lower-case version at a
 * fifth of its own JavaScript per proxied request.
 */
import { connectionTokens } from './hop-by-hop.ts';

export interface UpstreamResponseHead {
  status: number;
  /** The reason phrase ('' when none). */
  statusText: string;
  /** End-to-end headers, flat [name, value, …], names as sent, values without surrounding SP/HTAB. */
  headers: string[];
  /** The body's Content-Length; -1 when none (or when chunked framing overrides it). */
  contentLength: number;
  chunked: boolean;
  /** The connection cannot carry another request (Connection: close, or HTTP/1.0 without keep-alive). */
  close: boolean;
  /** The Upgrade header's value (a 101's protocol). */
  upgrade: string | undefined;
}

/** Why the head cannot be forwarded (the exchange fails with ORRERY_BAD_RESPONSE). */
export type ResponseHeadError = 'not_http1' | 'content_length';

const SP = 0x20;
const HTAB = 0x09;

/** `s[start, end)` equals the lower-case ASCII `lower`, ignoring the case of A–Z only. */
function nameIs(s: string, start: number, lower: string): boolean {
  for (let i = 0; i < lower.length; i++) {
    let c = s.charCodeAt(start + i);
    if (c >= 0x41 && c <= 0x5a) c += 0x20;
    if (c !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Hop-by-hop names that are dropped without a look at their value (RFC 9110 §7.6.1). */
function droppedName(s: string, start: number, length: number): boolean {
  switch (length) {
    case 2:
      return nameIs(s, start, 'te');
    case 7:
      return nameIs(s, start, 'trailer');
    case 10:
      return nameIs(s, start, 'keep-alive');
    case 16:
      return nameIs(s, start, 'proxy-connection');
    case 18:
      return nameIs(s, start, 'proxy-authenticate');
    case 19:
      return nameIs(s, start, 'proxy-authorization');
    default:
      return false;
  }
}

/** The header names the worker listed in Connection (besides close and keep-alive) are hop-by-hop too. */
function dropListed(headers: string[], listed: ReadonlySet<string>): void {
  for (let i = headers.length - 2; i >= 0; i -= 2) if (listed.has(headers[i]!.toLowerCase())) headers.splice(i, 2);
}

function dropContentLength(headers: string[]): void {
  for (let i = headers.length - 2; i >= 0; i -= 2) if (headers[i]!.length === 14 && nameIs(headers[i]!, 0, 'content-length')) headers.splice(i, 2);
}

/** The decimal number `s[start, end)` spells with digits only; -1 for anything else (empty, a sign, a space, too long). */
function digitsValue(s: string, start: number, end: number): number {
  if (end === start || end - start > 15) return -1;
  let n = 0;
  for (let i = start; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
  }
  return n;
}

/**
 * Parses `text`: the response head up to (not including) its blank line. A line without a colon
 * (or starting with one) is skipped, as before this parser existed.
 */
export function parseUpstreamResponseHead(text: string): UpstreamResponseHead | ResponseHeadError {
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = text.length;
  // "HTTP/1.1 200 OK"
  if (!text.startsWith('HTTP/1.')) return 'not_http1';
  const status = parseInt(text.slice(9, 12), 10);
  const statusText = eol > 13 ? text.slice(13, eol) : '';
  const http10 = text.charCodeAt(7) === 0x30;
  const headers: string[] = [];
  let contentLength = -1;
  let chunked = false;
  let closeToken = false;
  let keepAliveToken = false;
  let listed: Set<string> | undefined;
  let upgrade: string | undefined;
  let pos = eol + 2;
  while (pos < text.length) {
    let end = text.indexOf('\r\n', pos);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', pos);
    const lineStart = pos;
    pos = end + 2;
    if (colon <= lineStart || colon >= end) continue;
    let vs = colon + 1;
    while (vs < end && (text.charCodeAt(vs) === SP || text.charCodeAt(vs) === HTAB)) vs++;
    let ve = end;
    while (ve > vs && (text.charCodeAt(ve - 1) === SP || text.charCodeAt(ve - 1) === HTAB)) ve--;
    const nameLength = colon - lineStart;
    switch (nameLength) {
      case 7:
        if (nameIs(text, lineStart, 'upgrade')) {
          upgrade = text.slice(vs, ve);
          continue;
        }
        break;
      case 10:
        if (nameIs(text, lineStart, 'connection')) {
          // What node servers send on every kept-alive response: no list to split (a fifth of this parse's time otherwise).
          if (ve - vs === 10 && nameIs(text, vs, 'keep-alive')) {
            keepAliveToken = true;
            continue;
          }
          const value = text.slice(vs, ve);
          const v = value.toLowerCase();
          if (v.includes('close')) closeToken = true;
          if (v.includes('keep-alive')) keepAliveToken = true;
          const names = connectionTokens(value);
          if (names) for (const name of names) (listed ??= new Set()).add(name);
          continue;
        }
        break;
      case 14:
        if (nameIs(text, lineStart, 'content-length')) {
          // Strict: digits only, and repeated headers must agree (response smuggling otherwise).
          const n = digitsValue(text, vs, ve);
          if (n < 0 || (contentLength >= 0 && n !== contentLength)) return 'content_length';
          if (contentLength < 0) headers.push(text.slice(lineStart, colon), text.slice(vs, ve));
          contentLength = n;
          continue;
        }
        break;
      case 17:
        if (nameIs(text, lineStart, 'transfer-encoding')) {
          chunked = text.slice(vs, ve).toLowerCase().includes('chunked');
          continue;
        }
        break;
    }
    if (droppedName(text, lineStart, nameLength)) continue;
    headers.push(text.slice(lineStart, colon), text.slice(vs, ve));
  }
  // An HTTP/1.0 server keeps the connection only when it says keep-alive (and not close as well).
  const close = closeToken || (http10 && !keepAliveToken);
  if (chunked && contentLength >= 0) {
    // Transfer-Encoding wins over Content-Length (RFC 9112 §6.3); the client gets the router's own framing.
    dropContentLength(headers);
    contentLength = -1;
  }
  if (listed) dropListed(headers, listed);
  return { status, statusText, headers, contentLength, chunked, close, upgrade };
}
