import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fnv1a64, fnv64Init, fnv64Mod, fnv64Update, fnv64UpdateByte } from './fnv1a64.ts';

/** Textbook FNV-1a 64 with BigInt: the reference the fast version must match byte for byte. */
function reference(bytes: Uint8Array): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of bytes) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

describe('fnv1a64', () => {
  it('matches the published FNV-1a 64-bit test vectors (golden bytes)', () => {
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
    expect(fnv1a64('foobar')).toBe(0x85944171f73967e8n);
    expect(fnv1a64(new Uint8Array([0]))).toBe(0xaf63bd4c8601b7dfn);
    // UTF-8, not UTF-16: "é" is the two bytes c3 a9.
    expect(fnv1a64('é')).toBe(reference(new Uint8Array([0xc3, 0xa9])));
  });

  it('pins the HRW input layout key ‖ 0x00 ‖ address', () => {
    const st = fnv64Init();
    fnv64Update(st, new TextEncoder().encode('user-42'));
    fnv64UpdateByte(st, 0);
    fnv64Update(st, new TextEncoder().encode('10.0.0.1:8080'));
    const got = (BigInt(st[0]!) << 32n) | BigInt(st[1]!);
    expect(got).toBe(reference(new TextEncoder().encode('user-42\u000010.0.0.1:8080')));
    expect(got.toString(16)).toBe(reference(Buffer.from('user-42\x0010.0.0.1:8080', 'latin1')).toString(16));
  });

  it('equals the BigInt reference on arbitrary bytes', () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => fnv1a64(bytes) === reference(bytes)), { numRuns: 2000 });
  });

  it('reduces modulo m without BigInt exactly', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 40 }), fc.integer({ min: 1, max: 1_000_000 }), (bytes, m) => {
        const st = fnv64Update(fnv64Init(), bytes);
        return fnv64Mod(st[0]!, st[1]!, m) === Number(reference(bytes) % BigInt(m));
      }),
      { numRuns: 2000 },
    );
  });
});
