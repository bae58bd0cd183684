import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.ts';
import { parseIfMatch, parseKey, parseTtlSeconds } from './state-key.ts';

const code = (fn: () => unknown) => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof HttpError ? e.code : 'other';
  }
};

describe('key and header parsing', () => {
  it('keys: 1–512 UTF-8 bytes after decoding, no controls, no leading #', () => {
    expect(parseKey('a%2Fb')).toBe('a/b');
    expect(parseKey('%C3%A9')).toBe('é');
    expect(parseKey('x'.repeat(512))).toHaveLength(512);
    for (const bad of ['', 'x'.repeat(513), '%23a', '%00', '%1F', '%7F', '%C2%80', '%E2%82', '%', '%F4%8F%BF%BF']) expect(code(() => parseKey(bad)), bad).toBe('bad_request');
    expect(parseKey('a%23')).toBe('a#');
  });

  it('any encodeURIComponent-encoded key without controls round-trips', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }), (key) => {
        fc.pre(!/^#|[\u0000-\u001f\u007f-\u009f]|\u{10FFFF}/u.test(key));
        expect(parseKey(encodeURIComponent(key))).toBe(key);
      }),
    );
  });

  it('If-Match and TTL', () => {
    expect(parseIfMatch(undefined)).toBeUndefined();
    expect(parseIfMatch('12')).toBe(12);
    expect(parseIfMatch('"12"')).toBe(12);
    for (const bad of ['', '*', '-1', '1.5', 'W/"1"', '1234567890123456']) expect(code(() => parseIfMatch(bad))).toBe('bad_request');
    expect(parseTtlSeconds('0')).toBe(0);
    expect(parseTtlSeconds('3600')).toBe(3600);
    for (const bad of ['-1', '1.5', 'x', '', '999999999']) expect(code(() => parseTtlSeconds(bad))).toBe('bad_request');
  });
});
