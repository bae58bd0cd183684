import { describe, expect, it } from 'vitest';
import { encodeGrpcMessage, grpcStatusOf, isGrpcContentType } from './grpc-error-status.ts';

describe('grpcStatusOf', () => {
  it('maps the router codes by meaning', () => {
    expect(grpcStatusOf(404, 'function_not_found')).toBe(5);
    expect(grpcStatusOf(404, 'unknown_tag')).toBe(5);
    expect(grpcStatusOf(503, 'no_revision')).toBe(14);
    expect(grpcStatusOf(503, 'queue_full')).toBe(8);
    expect(grpcStatusOf(413, 'body_too_large')).toBe(8);
    expect(grpcStatusOf(504, 'activation_timeout')).toBe(4);
    expect(grpcStatusOf(504, 'upstream_timeout')).toBe(4);
    expect(grpcStatusOf(502, 'upstream_unreachable')).toBe(14);
    expect(grpcStatusOf(502, 'upstream_not_h2c')).toBe(12);
  });

  it('maps other answers by HTTP status as gRPC specifies', () => {
    expect(grpcStatusOf(400, 'x')).toBe(13);
    expect(grpcStatusOf(401, 'x')).toBe(16);
    expect(grpcStatusOf(403, 'x')).toBe(7);
    expect(grpcStatusOf(404, 'x')).toBe(12);
    expect(grpcStatusOf(429, 'x')).toBe(14);
    expect(grpcStatusOf(503, 'x')).toBe(14);
    expect(grpcStatusOf(500, 'x')).toBe(2);
  });
});

describe('encodeGrpcMessage', () => {
  it('keeps printable ASCII and escapes % and everything else as UTF-8 bytes', () => {
    expect(encodeGrpcMessage('no function a/b; check the name')).toBe('no function a/b; check the name');
    expect(encodeGrpcMessage('100% done\n')).toBe('100%25 done%0A');
    expect(encodeGrpcMessage('héllo')).toBe('h%C3%A9llo');
  });
});

describe('isGrpcContentType', () => {
  it('knows application/grpc and its variants, and nothing else', () => {
    expect(isGrpcContentType('application/grpc')).toBe(true);
    expect(isGrpcContentType('application/grpc+proto')).toBe(true);
    expect(isGrpcContentType('Application/GRPC+json')).toBe(true);
    expect(isGrpcContentType('application/grpc; charset=utf-8')).toBe(true);
    expect(isGrpcContentType('application/grpc-web')).toBe(false);
    expect(isGrpcContentType('application/grpcx')).toBe(false);
    expect(isGrpcContentType('application/json')).toBe(false);
    expect(isGrpcContentType(undefined)).toBe(false);
  });
});
