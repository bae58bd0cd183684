/**
 * HTTP/1.1 on a raw socket, for the fuzz tests: writes bytes exactly as given (NUL bytes, lying
 * Content-Length, pipelined requests, a request cut short) and splits whatever comes back into
 * answers. Not used by the server itself.
 */
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  /** Header names lower-cased; a repeated header keeps its last value. */
  headers: Record<string, string>;
  /** The body as received (de-chunked); for an open-ended stream, what arrived so far. */
  body: string;
  /** False when the answer was cut off (an event stream, or the socket closed early). */
  complete: boolean;
}

export interface ExchangeOptions {
  host: string;
  port: number;
  /** Source address, so one machine can act as several clients (127.0.0.2, …). */
  localAddress?: string;
  /** Half-close after this much silence once something arrived (default 25 ms). */
  quietMs?: number;
  /** Half-close after this long when nothing at all arrived (the request may be incomplete; default 60 ms). */
  firstByteMs?: number;
  /** Give up (destroy the socket) this long after the half-close (default 800 ms). */
  closeMs?: number;
  /** The request was HEAD: answers carry no body whatever their Content-Length says. */
  head?: boolean;
  /** When nothing arrived by `firstByteMs`, reset the connection instead of half-closing it (a client that went away mid-request). */
  abandon?: boolean;
}

/**
 * Writes `bytes`, collects the answers, half-closes once the server has gone quiet (or never
 * spoke: an incomplete request is then finished by the end of the stream), and resolves when the
 * server closes or `closeMs` passes. The server sees a client that went away mid-stream, which is
 * also what an abandoned request looks like.
 */
export function rawExchange(bytes: Buffer, o: ExchangeOptions): Promise<{ text: string; answers: RawAnswer[] }> {
  const quietMs = o.quietMs ?? 25;
  const firstByteMs = o.firstByteMs ?? 60;
  const closeMs = o.closeMs ?? 800;
  return new Promise((resolve) => {
    const s = connect({ host: o.host, port: o.port, ...(o.localAddress ? { localAddress: o.localAddress } : {}) });
    const chunks: Buffer[] = [];
    let ended = false;
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      s.destroy();
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ text, answers: splitAnswers(text, o.head ?? false) });
    };
    const halfClose = (): void => {
      if (ended) return;
      ended = true;
      s.end();
      clearTimeout(timer);
      timer = setTimeout(finish, closeMs);
    };
    const arm = (ms: number, then: () => void = halfClose): void => {
      if (ended) return;
      clearTimeout(timer);
      timer = setTimeout(then, ms);
    };
    s.on('data', (d: Buffer) => {
      chunks.push(d);
      arm(quietMs);
    });
    s.on('error', () => finish());
    s.on('close', finish);
    s.write(bytes, () => arm(firstByteMs, o.abandon ? () => (chunks.length ? halfClose() : finish()) : halfClose));
  });
}

/** Opens a socket and writes `bytes` without waiting for anything (a watch the caller holds). */
export function rawOpen(bytes: Buffer, o: { host: string; port: number; localAddress?: string }): Socket {
  const s = connect({ host: o.host, port: o.port, ...(o.localAddress ? { localAddress: o.localAddress } : {}) });
  s.on('error', () => {});
  s.write(bytes);
  return s;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } | undefined {
  const lines = head.split('\r\n');
  const m = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0] ?? '');
  if (!m) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(m[1]), headers };
}

/** De-chunks from `pos`; returns the body and where the message ends, or the partial body and -1. */
function readChunked(text: string, pos: number): { body: string; end: number } {
  let body = '';
  for (;;) {
    const eol = text.indexOf('\r\n', pos);
    if (eol < 0) return { body, end: -1 };
    const size = parseInt(text.slice(pos, eol), 16);
    if (!Number.isFinite(size)) return { body, end: -1 };
    const start = eol + 2;
    if (size === 0) {
      const trailerEnd = text.indexOf('\r\n', start);
      return { body, end: trailerEnd < 0 ? -1 : trailerEnd + 2 };
    }
    if (start + size + 2 > text.length) return { body: body + text.slice(start, start + size), end: -1 };
    body += text.slice(start, start + size);
    pos = start + size + 2;
  }
}

/**
 * Splits a byte stream of HTTP/1.1 answers (Content-Length or chunked framed; 1xx interim
 * answers included) into answers. Text after something that is not an answer is ignored.
 */
export function splitAnswers(text: string, head: boolean): RawAnswer[] {
  const out: RawAnswer[] = [];
  let pos = 0;
  while (pos < text.length) {
    const end = text.indexOf('\r\n\r\n', pos);
    if (end < 0) {
      const h = parseHead(text.slice(pos));
      if (h) out.push({ ...h, body: '', complete: false });
      break;
    }
    const h = parseHead(text.slice(pos, end));
    if (!h) break;
    const bodyStart = end + 4;
    if (head || h.status < 200 || h.status === 204 || h.status === 304) {
      out.push({ ...h, body: '', complete: true });
      pos = bodyStart;
      continue;
    }
    if (/chunked/i.test(h.headers['transfer-encoding'] ?? '')) {
      const c = readChunked(text, bodyStart);
      out.push({ ...h, body: Buffer.from(c.body, 'latin1').toString('utf8'), complete: c.end >= 0 });
      if (c.end < 0) break;
      pos = c.end;
      continue;
    }
    const declared = h.headers['content-length'];
    const length = declared === undefined ? text.length - bodyStart : Number(declared);
    const raw = text.slice(bodyStart, bodyStart + length);
    out.push({ ...h, body: Buffer.from(raw, 'latin1').toString('utf8'), complete: declared !== undefined && raw.length === length });
    if (declared === undefined) break;
    pos = bodyStart + length;
  }
  return out;
}
