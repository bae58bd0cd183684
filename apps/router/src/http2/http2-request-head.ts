/**
 * An HTTP/2 request's header block as the data plane's raw header list (the shape both HTTP/1.1
 * ingresses give it), so a stream is routed exactly like an HTTP/1.1 request — host, tag,
 * sticky key, forwarding headers — by the same code (RFC 9113 §8.3.1, §8.2.2):
 *
 *   :authority → Host (a Host field beside it is dropped); other pseudo-headers dropped;
 *   connection-specific fields dropped (node's server already refuses a request carrying them);
 *   a body without content-length → Transfer-Encoding: chunked, as an HTTP/1.1 hop needs.
 *
 * And what only HTTP/2 has: whether the stream is gRPC, and its grpc-timeout. Pure.
 */
import { isGrpcContentType } from './grpc-error-status.ts';
import { parseGrpcTimeout } from '@orrery/h2c';

export type Http2HeaderBlock = Record<string, string | string[] | undefined>;

export interface Http2RequestHead {
  method: string;
  path: string;
  rawHeaders: string[];
  /** content-type application/grpc*: proxied over h2c, errors answered as gRPC statuses. */
  grpc: boolean;
  /** grpc-timeout in ms, when the client set one. */
  deadlineMs: number | undefined;
}

const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host']);

/** `endStream`: the HEADERS frame ended the stream (no body). */
export function http2RequestHead(headers: Http2HeaderBlock, endStream: boolean): Http2RequestHead {
  const raw: string[] = [];
  const authority = first(headers[':authority']) ?? first(headers.host);
  if (authority !== undefined) raw.push('host', authority);
  let hasLength = false;
  for (const name of Object.keys(headers)) {
    if (name.charCodeAt(0) === 0x3a /* : */ || CONNECTION_SPECIFIC.has(name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (name === 'content-length') hasLength = true;
    if (Array.isArray(value)) for (const v of value) raw.push(name, v);
    else raw.push(name, value);
  }
  if (!endStream && !hasLength) raw.push('transfer-encoding', 'chunked');
  return {
    method: first(headers[':method']) ?? 'GET',
    path: first(headers[':path']) ?? '/',
    rawHeaders: raw,
    grpc: isGrpcContentType(first(headers['content-type'])),
    deadlineMs: parseGrpcTimeout(first(headers['grpc-timeout'])),
  };
}

function first(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}
