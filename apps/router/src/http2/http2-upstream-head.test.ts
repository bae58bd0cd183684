import { describe, expect, it } from 'vitest';
import { flattenHttp2Headers, http2UpstreamHeaders } from './http2-upstream-head.ts';

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
