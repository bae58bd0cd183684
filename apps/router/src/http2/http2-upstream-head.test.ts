import { describe, expect, it } from 'vitest';
import { flattenHttp2Headers, grpcTimeoutHeader, http2UpstreamHeaders } from './http2-upstream-head.ts';

describe('http2UpstreamHeaders', () => {
  it('builds the pseudo-headers and lower-cases the rest', () => {
    expect(http2UpstreamHeaders('POST', '/echo.Echo/Say', 'router:8080', ['Content-Type', 'application/grpc', 'X-Forwarded-For', '10.0.0.1'], true)).toEqual({
      ':method': 'POST',
      ':path': '/echo.Echo/Say',
      ':scheme': 'http',
      ':authority': 'router:8080',
      'content-type': 'application/grpc',
      'x-forwarded-for': '10.0.0.1',
      te: 'trailers',
    });
  });

  it('collects repeated names, drops connection-specific ones and sends TE only for gRPC', () => {
    const h = http2UpstreamHeaders('GET', '/', undefined, ['x-m', '1', 'x-m', '2', 'x-m', '3', 'connection', 'close', 'te', 'gzip', 'Host', 'h'], false);
    expect(h).toEqual({ ':method': 'GET', ':path': '/', ':scheme': 'http', 'x-m': ['1', '2', '3'] });
  });
});

describe('the grpc-timeout a worker gets', () => {
  it("replaces the client's with what is left after the router held the call", () => {
    const h = http2UpstreamHeaders('POST', '/a.B/C', 'w:1', ['grpc-timeout', '2S', 'content-type', 'application/grpc'], true, 1_250.2);
    expect(h['grpc-timeout']).toBe('1251m');
    expect(http2UpstreamHeaders('POST', '/a.B/C', 'w:1', ['grpc-timeout', '2S'], true)['grpc-timeout']).toBe('2S');
  });

  it('never sends 0 or a value over 8 digits', () => {
    expect([grpcTimeoutHeader(0), grpcTimeoutHeader(-30), grpcTimeoutHeader(0.2)]).toEqual(['1m', '1m', '1m']);
    expect(grpcTimeoutHeader(99_999_999)).toBe('99999999m');
    expect(grpcTimeoutHeader(100_000_000)).toBe('100000S');
    expect(grpcTimeoutHeader(1e15)).toBe('99999999S');
  });
});

describe('flattenHttp2Headers', () => {
  it('drops pseudo-headers and connection-specific fields and keeps repeated values', () => {
    expect(flattenHttp2Headers({ ':status': '200', 'content-type': 'application/grpc', 'x-a': ['1', '2'], connection: 'x', 'grpc-status': '0' })).toEqual([
      'content-type',
      'application/grpc',
      'x-a',
      '1',
      'x-a',
      '2',
      'grpc-status',
      '0',
    ]);
  });
});
