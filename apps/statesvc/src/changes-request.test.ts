import { describe, expect, it } from 'vitest';
import { parseChangesRequest } from './changes-request.ts';
import { HttpError } from './http-error.ts';

const code = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return e instanceof HttpError ? e.code : String(e);
  }
  return 'ok';
};

describe('parseChangesRequest', () => {
  it('since, prefix and Last-Event-ID (which wins: EventSource resends the original URL)', () => {
    expect(parseChangesRequest('', undefined)).toEqual({ prefix: undefined, since: undefined });
    expect(parseChangesRequest('since=0', undefined)).toEqual({ prefix: undefined, since: 0 });
    expect(parseChangesRequest('prefix=cart%2F&since=42', undefined)).toEqual({ prefix: 'cart/', since: 42 });
    expect(parseChangesRequest('since=', undefined).since).toBeUndefined();
    expect(parseChangesRequest('since=5', '9').since).toBe(9);
    expect(parseChangesRequest('since=5', ' ').since).toBe(5);
    expect(parseChangesRequest('', '999999999999999').since).toBe(999999999999999);
  });

  it('anything else is a 400', () => {
    for (const q of ['since=-1', 'since=1.5', 'since=0x10', 'since=1e3', 'since=9999999999999999', 'prefix=%23x', 'prefix=a%00b', 'prefix=a%0Ab']) {
      expect(code(() => parseChangesRequest(q, undefined)), q).toBe('bad_request');
    }
    expect(code(() => parseChangesRequest('', 'abc'))).toBe('bad_request');
    expect(code(() => parseChangesRequest('', ['1', '2']))).toBe('bad_request');
  });
});
