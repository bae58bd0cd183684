/**
 * The HTTP/2 connection preface (RFC 9113 §3.4): a client speaking h2c with prior knowledge
 * opens with these 24 bytes. No HTTP/1.1 request starts with `PRI `, so a connection whose first
 * bytes match goes to an HTTP/2 server: the router's data plane (apps/router/src/http2) and the
 * worker's port (apps/runtime/src/http2) both tell the two apart this way. Pure.
 */

export const HTTP2_PREFACE = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');

/**
 * true when `bytes` start with the preface, or are a start of it at least `PRI ` long (the rest
 * is still in flight: the HTTP/2 server reads it, and fails the session if it is not the preface).
 */
export function startsWithHttp2Preface(bytes: Uint8Array): boolean {
  const n = Math.min(bytes.length, HTTP2_PREFACE.length);
  if (n < 4) return false;
  for (let i = 0; i < n; i++) if (bytes[i] !== HTTP2_PREFACE[i]) return false;
  return true;
}

/** 'h2': the bytes so far are the preface's start (at least `PRI `); 'http1': they cannot be; 'more': too few to tell. */
export function sniffProtocol(bytes: Uint8Array): 'h2' | 'http1' | 'more' {
  const n = Math.min(bytes.length, HTTP2_PREFACE.length);
  for (let i = 0; i < n; i++) if (bytes[i] !== HTTP2_PREFACE[i]) return 'http1';
  return n >= 4 ? 'h2' : 'more';
}
