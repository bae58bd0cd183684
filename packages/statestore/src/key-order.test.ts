import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { StateStoreError } from './errors.ts';
import { decodeCursor, encodeCursor } from './key-order.ts';

const code = (fn: () => unknown): string => {
  try {
    fn();
    return 'ok';
  } catch (e) {
    return e instanceof StateStoreError ? e.code : 'other';
  }
};

describe('list cursors', () => {
  it('round-trip every valid key', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1, maxLength: 60 }), (key) => {
        fc.pre(!/^#|[\u0000-\u001f\u007f-\u009f]|\u{10FFFF}/u.test(key) && Buffer.byteLength(key) <= 512);
        expect(decodeCursor(encodeCursor(key))).toBe(key);
      }),
    );
    expect(decodeCursor(undefined)).toBeUndefined();
    expect(decodeCursor('')).toBeUndefined();
  });

  it('refuse what encodeCursor cannot have produced: NUL and other controls, invalid UTF-8, over 512 bytes, non-canonical base64url', () => {
    const b64 = (bytes: number[] | string) => Buffer.from(typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes)).toString('base64url');
    for (const bad of [
      'AA', // "\0"
      'AAAA', // "\0\0\0"
      b64('a\u0000b'),
      b64('\u0001'),
      b64('\u007f'),
      b64('\u0085'),
      b64('#meta'),
      b64([0xff]), // not UTF-8
      b64([0xed, 0xa0, 0x80]), // an encoded surrogate
      b64([0xc3]), // truncated sequence
      b64('x'.repeat(513)),
      b64('\u{10FFFF}'),
      'YQ=', // padding
      'YR', // "a" with non-zero spare bits: decodes but is not canonical
      'Y', // one character
      '!!',
      'a'.repeat(1025),
      'YQ YQ',
    ]) {
      expect(code(() => decodeCursor(bad)), bad).toBe('bad_request');
    }
  });

  it('never throws anything but bad_request, and never returns a key with a control character', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 40 }), fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('base64url'))), (cursor) => {
        const c = code(() => decodeCursor(cursor));
        expect(['ok', 'bad_request']).toContain(c);
        if (c === 'ok' && cursor) expect(decodeCursor(cursor)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      }),
    );
  });
});
