import { describe, expect, it } from 'vitest';
import { http2RequestHead } from './http2-request-head.ts';

describe('http2RequestHead', () => {
  it('turns :authority into Host and drops the other pseudo-headers', () => {
    const h = http2RequestHead({ ':method': 'GET', ':path': '/ns/fn/x?a=1', ':scheme': 'http', ':authority': 'router:8080', accept: '*/*' }, true);
    expect(h).toEqual({ method: 'GET', path: '/ns/fn/x?a=1', rawHeaders: ['host', 'router:8080', 'accept', '*/*'], grpc: false, deadlineMs: undefined });
  });

  it('prefers :authority over a Host field, and takes Host when :authority is absent', () => {
    expect(http2RequestHead({ ':authority': 'a', host: 'b' }, true).rawHeaders).toEqual(['host', 'a']);
    expect(http2RequestHead({ host: 'b' }, true).rawHeaders).toEqual(['host', 'b']);
  });

  it('drops connection-specific fields', () => {
    const h = http2RequestHead({ ':authority': 'a', connection: 'x', 'keep-alive': '1', 'proxy-connection': 'y', 'transfer-encoding': 'chunked', upgrade: 'h2c', te: 'trailers' }, true);
    expect(h.rawHeaders).toEqual(['host', 'a', 'te', 'trailers']);
  });

  it('marks a body without content-length as chunked for the HTTP/1.1 hop', () => {
    expect(http2RequestHead({ ':authority': 'a' }, false).rawHeaders).toEqual(['host', 'a', 'transfer-encoding', 'chunked']);
    expect(http2RequestHead({ ':authority': 'a', 'content-length': '3' }, false).rawHeaders).toEqual(['host', 'a', 'content-length', '3']);
  });

  it('keeps repeated fields as separate lines', () => {
    expect(http2RequestHead({ ':authority': 'a', 'x-m': ['1', '2'] }, true).rawHeaders).toEqual(['host', 'a', 'x-m', '1', 'x-m', '2']);
  });

  it('knows gRPC and its deadline', () => {
    const h = http2RequestHead({ ':method': 'POST', ':path': '/ns/fn/echo.Echo/Say', ':authority': 'a', 'content-type': 'application/grpc+proto', te: 'trailers', 'grpc-timeout': '1500m' }, false);
    expect(h.grpc).toBe(true);
    expect(h.deadlineMs).toBe(1500);
  });
});
