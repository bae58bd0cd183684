/**
 * Which upgrade requests the router proxies. node's parser reports an upgrade when a request
 * carries `Connection: upgrade` and an `Upgrade` header (the raw ingress hands every such
 * connection to node first, request-head-parser.ts); this decides what happens next. Pure.
 *
 *   Upgrade names websocket, GET, HTTP/1.1, no body   → proxied as a WebSocket
 *   Upgrade names websocket, anything else wrong      → 400 bad_websocket_handshake
 *   Upgrade names only other protocols (h2c, TLS/1.0) → 400 upgrade_not_supported
 *
 * The handshake's own fields (Sec-WebSocket-Key, -Version, -Protocol, -Extensions) are the
 * worker's to judge: they pass through unchanged, and its refusal comes back as its answer.
 */

export interface UpgradeRejection {
  status: 400;
  code: 'upgrade_not_supported' | 'bad_websocket_handshake';
  message: string;
}

/** The protocol tokens of every `Upgrade` line, lower-cased (`websocket`, `h2c`, `tls/1.0`). */
export function upgradeProtocols(rawHeaders: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!;
    if (name.length !== 7 || name.toLowerCase() !== 'upgrade') continue;
    for (const part of rawHeaders[i + 1]!.split(',')) {
      const token = part.trim().toLowerCase();
      if (token !== '') out.push(token);
    }
  }
  return out;
}

/** undefined: proxy it as a WebSocket handshake; otherwise the answer to give (and close). */
export function checkUpgradeRequest(method: string, httpVersion: string, rawHeaders: readonly string[]): UpgradeRejection | undefined {
  const protocols = upgradeProtocols(rawHeaders);
  // RFC 6455 §4.1 names the token without a version; a client offering several protocols gets websocket.
  if (!protocols.includes('websocket')) {
    const asked = protocols.length === 0 ? 'nothing' : protocols.join(', ');
    // HTTP/2 cleartext is served, but only with prior knowledge (RFC 9113 deprecated the h2c upgrade).
    const h2c = protocols.includes('h2c') ? '; for HTTP/2 cleartext connect with prior knowledge instead (curl --http2-prior-knowledge, grpcurl -plaintext)' : '';
    return {
      status: 400,
      code: 'upgrade_not_supported',
      message: `the router switches connections only to websocket (this request asked for ${asked}); send it without Connection: upgrade and Upgrade${h2c}`,
    };
  }
  if (method !== 'GET') {
    return { status: 400, code: 'bad_websocket_handshake', message: `a WebSocket handshake is a GET request (RFC 6455 §4.1), not ${method}` };
  }
  if (httpVersion !== '1.1') {
    return { status: 400, code: 'bad_websocket_handshake', message: `a WebSocket handshake is an HTTP/1.1 request (RFC 6455 §4.1), not HTTP/${httpVersion}` };
  }
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    // Bytes after the head belong to the WebSocket stream: a body would reach the worker as frames.
    if ((name === 'content-length' && rawHeaders[i + 1]!.trim() !== '0') || name === 'transfer-encoding') {
      return { status: 400, code: 'bad_websocket_handshake', message: 'a WebSocket handshake has no body; send it without Content-Length or Transfer-Encoding' };
    }
  }
  return undefined;
}
