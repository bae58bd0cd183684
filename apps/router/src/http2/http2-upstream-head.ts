/**
 * Header blocks of the h2c leg to a worker (http2-upstream.ts), from and to the flat
 * [name, value, …] lists the data plane works with. Pure.
 */
import type { OutgoingHttpHeaders } from 'node:http2';
import type { Http2HeaderBlock } from './http2-request-head.ts';

/** RFC 9113 §8.2.2: never sent on HTTP/2 (TE only as `trailers`, which gRPC requires). */
const CONNECTION_SPECIFIC = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'host', 'te']);

/**
 * `forward` is the data plane's list (hop-by-hop, Host and the client's TE already removed).
 * `remainingMs`: what is left of the client's grpc-timeout after the router held the call (queued
 * for a worker); it replaces the client's value, so the worker stops when the client gives up.
 */
export function http2UpstreamHeaders(
  method: string,
  path: string,
  authority: string | undefined,
  forward: readonly string[],
  grpc: boolean,
  remainingMs?: number,
): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = { ':method': method, ':path': path, ':scheme': 'http' };
  if (authority !== undefined) out[':authority'] = authority;
  for (let i = 0; i < forward.length; i += 2) {
    const name = forward[i]!.toLowerCase();
    if (CONNECTION_SPECIFIC.has(name) || name.charCodeAt(0) === 0x3a) continue;
    const value = forward[i + 1]!;
    const had = out[name];
    if (had === undefined) out[name] = value;
    else if (Array.isArray(had)) had.push(value);
    else out[name] = [String(had), value];
  }
  if (grpc) out.te = 'trailers';
  if (remainingMs !== undefined) out['grpc-timeout'] = grpcTimeoutHeader(remainingMs);
  return out;
}

/** A grpc-timeout value in whole milliseconds (at least 1: "0m" would be an expired call), within its 8 digits. */
export function grpcTimeoutHeader(ms: number): string {
  const whole = Math.max(1, Math.ceil(ms));
  return whole <= 99_999_999 ? `${whole}m` : `${Math.min(99_999_999, Math.ceil(whole / 1000))}S`;
}

/** A response or trailer block as a flat list, without pseudo-headers and connection-specific fields. */
export function flattenHttp2Headers(headers: Http2HeaderBlock): string[] {
  const out: string[] = [];
  for (const name of Object.keys(headers)) {
    if (name.charCodeAt(0) === 0x3a || CONNECTION_SPECIFIC.has(name)) continue;
    const value = headers[name];
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) out.push(name, v);
    else out.push(name, String(value));
  }
  return out;
}
