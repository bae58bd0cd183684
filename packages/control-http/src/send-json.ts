import type { ServerResponse } from 'node:http';

/**
 * Answers with a JSON body and its Content-Length (so keep-alive clients need no chunked
 * decoding). A response already started or a socket already gone is left alone: a late answer
 * after a timeout must not throw ERR_HTTP_HEADERS_SENT.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}
