import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.ts';
import { stateKeyProblem } from '@orrery/spec';
import { parseIfMatch, parseKey, parseListPrefix, parseTtlSeconds } from './state-key.ts';

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

  it('list prefixes: empty or absent lists everything; otherwise the key rules (no NUL, no controls, ≤ 512 bytes, no leading #)', () => {
    expect(parseListPrefix(null)).toBeUndefined();
    expect(parseListPrefix('')).toBeUndefined();
    expect(parseListPrefix('a/')).toBe('a/');
    expect(parseListPrefix('é'.repeat(256))).toHaveLength(256);
    for (const bad of ['\u0000', 'a\u0000b', '\u0001', '\t', '\n', '\r', '\u001f', '\u007f', '\u0085', '\u009f', 'x'.repeat(513), 'é'.repeat(257), '#', '#meta', '\u{10FFFF}', 'a\ud800', '\udc00b']) {
      expect(code(() => parseListPrefix(bad)), JSON.stringify(bad)).toBe('bad_request');
    }
  });

  it('stateKeyProblem: the shared rule, exhaustively over the control and boundary code points', () => {
    for (let c = 0; c <= 0x20; c++) expect(stateKeyProblem(`a${String.fromCharCode(c)}`) === undefined, c.toString(16)).toBe(c === 0x20);
    for (let c = 0x7e; c <= 0xa0; c++) expect(stateKeyProblem(`a${String.fromCharCode(c)}`) === undefined, c.toString(16)).toBe(c === 0x7e || c === 0xa0);
    expect(stateKeyProblem('\u{10FFFE}')).toBeUndefined();
    expect(stateKeyProblem('\u{10FFFF}')).toBeDefined();
    expect(stateKeyProblem('')).toBeDefined();
    expect(stateKeyProblem('', 'prefix', true)).toBeUndefined();
    expect(stateKeyProblem('😀'.repeat(128))).toBeUndefined(); // 512 bytes
    expect(stateKeyProblem(`${'😀'.repeat(128)}a`)).toMatch(/longer than 512/);
    expect(stateKeyProblem('€'.repeat(170) + 'ab')).toBeUndefined(); // 512
    expect(stateKeyProblem('€'.repeat(171))).toMatch(/longer than 512/); // 513
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 300 }), (s) => {
        // The byte count agrees with Buffer's, lone surrogates counted as the U+FFFD they become.
        const tooLong = stateKeyProblem(s)?.includes('longer') ?? false;
        expect(tooLong).toBe(Buffer.byteLength(s, 'utf8') > 512);
      }),
      { numRuns: 60 },
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
