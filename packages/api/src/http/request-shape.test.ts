import { describe, expect, it } from 'vitest';
import { batchCallCount, MAX_BATCH_SIZE } from './batch-size.ts';
import { isJsonRequest } from './json-content-type.ts';
import { refusalBody } from './refusal-body.ts';

describe('isJsonRequest', () => {
  it('GET and HEAD carry no body: always fine', () => {
    expect(isJsonRequest('GET', undefined)).toBe(true);
    expect(isJsonRequest('head', 'multipart/form-data')).toBe(true);
  });
  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON', ' application/json ;charset=UTF-8'])('POST %j is JSON', (ct) => {
    expect(isJsonRequest('POST', ct)).toBe(true);
  });
  it.each([undefined, null, '', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream', 'application/jsonx', 'application/json-patch+json'])('POST %j is refused', (ct) => {
    expect(isJsonRequest('POST', ct)).toBe(false);
  });
});

describe('batchCallCount', () => {
  it('counts the comma-separated paths of a batch call', () => {
    expect(batchCallCount('/trpc/a,b,c?batch=1&input={}')).toBe(3);
    expect(batchCallCount('/trpc/a?batch=1')).toBe(1);
    expect(batchCallCount('/trpc/a,b,c')).toBe(1); // not a batch: one (unknown) procedure
    expect(batchCallCount('/trpc/a,b?batch=0')).toBe(1);
    expect(batchCallCount('/api/x,y?batch=1', '/api/')).toBe(2);
    expect(batchCallCount('/trpc/a%2Cb%2cc?batch=1')).toBe(3); // as tRPC decodes it
    expect(batchCallCount('/trpc/a,%E0%A4%A?batch=1')).toBe(2); // malformed escape: counted raw
    expect(batchCallCount(`/trpc/${Array.from({ length: MAX_BATCH_SIZE + 1 }, () => 'auth.whoami').join(',')}?batch=1`)).toBe(MAX_BATCH_SIZE + 1);
  });
});

describe('refusalBody', () => {
  it("is tRPC's error envelope with a reason", () => {
    expect(JSON.parse(refusalBody('UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'json only'))).toEqual({
      error: { message: 'json only', code: -32015, data: { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, reason: 'unsupported_media_type' } },
    });
  });
});
