import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEY_MAX_LENGTH, idempotencyRecordBytes, parseIdempotencyKey, parseIdempotencyRetention, recordedReadBytes } from './idempotency-key.ts';

describe('Idempotency-Key', () => {
  it('absent is no key; a UUID, a ULID and base64 are keys; one pair of quotes is dropped', () => {
    expect(parseIdempotencyKey(undefined)).toEqual({});
    for (const k of ['8e03978e-40d5-43e8-bc93-6894a57f9324', '01ARZ3NDEKTSV4RRFFQ69G5FAV', 'aGVsbG8gd29ybGQ=', 'order:42/retry+1', '!#$%&\'()*+,-./:;<=>?@[]^_`{|}~']) {
      expect(parseIdempotencyKey(k)).toEqual({ key: k });
    }
    expect(parseIdempotencyKey('"8e03978e"')).toEqual({ key: '8e03978e' });
    expect(parseIdempotencyKey('x'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH))).toEqual({ key: 'x'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH) });
  });

  it('refuses empty, too long, repeated, and anything outside visible ASCII but " and \\', () => {
    const problem = (v: string | string[]) => parseIdempotencyKey(v).problem;
    expect(problem('')).toMatch(/empty/);
    expect(problem('""')).toMatch(/empty/);
    expect(problem('x'.repeat(IDEMPOTENCY_KEY_MAX_LENGTH + 1))).toMatch(/longer than 255/);
    expect(problem(['a', 'b'])).toMatch(/once/);
    for (const bad of ['a b', 'a, b', 'a\tb', 'é', 'a"b', '"', '"a', 'a\\b', '\u0000', '\u007f', 'a\nb', '\u{1F600}']) expect(problem(bad), JSON.stringify(bad)).toBeDefined();
  });

  it('property: a key is accepted exactly when it is 1–255 characters of ! to ~ without " and \\, and comes back unchanged', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary-ascii', maxLength: 300 }), (s) => {
        const ok = s.length >= 1 && s.length <= 255 && [...s].every((c) => c >= '!' && c <= '~' && c !== '"' && c !== '\\');
        const r = parseIdempotencyKey(s);
        const quoted = s.length >= 2 && s.startsWith('"') && s.endsWith('"');
        if (!quoted) expect(r.key !== undefined).toBe(ok);
        if (r.key !== undefined && !quoted) expect(r.key).toBe(s);
      }),
      { seed: 22, numRuns: 2000 },
    );
  });

  it('a stored outcome counts 64 bytes plus its key', () => {
    expect(idempotencyRecordBytes('k')).toBe(65);
    expect(idempotencyRecordBytes('x'.repeat(255))).toBe(319);
  });

  it('a recorded read counts an outcome plus the bytes of the value it keeps', () => {
    expect(recordedReadBytes('k', 0)).toBe(65);
    expect(recordedReadBytes('k', 10)).toBe(75);
  });
});

describe('X-Orrery-Idempotency-Retention', () => {
  it('absent is none; 1 to 10 plain digits are seconds', () => {
    expect(parseIdempotencyRetention(undefined)).toEqual({});
    expect(parseIdempotencyRetention('1')).toEqual({ seconds: 1 });
    expect(parseIdempotencyRetention('300')).toEqual({ seconds: 300 });
    expect(parseIdempotencyRetention('9999999999')).toEqual({ seconds: 9_999_999_999 });
  });

  it('refuses zero, signs, fractions, units, leading zeros, spaces, 11 digits and a header sent twice', () => {
    for (const bad of ['', '0', '00', '-1', '+1', '1.5', '1.0', '1e3', '05', ' 5', '5 ', '5s', '0x10', '10000000000', '１２', 'NaN', 'Infinity']) {
      expect(parseIdempotencyRetention(bad).problem, JSON.stringify(bad)).toMatch(/whole number of seconds/);
      expect(parseIdempotencyRetention(bad).seconds).toBeUndefined();
    }
    expect(parseIdempotencyRetention(['5', '5']).problem).toMatch(/once/);
  });

  it('property: accepted exactly when it is the decimal form of an integer from 1 to 10^10 − 1, and read as that integer', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary-ascii', maxLength: 14 }), fc.integer({ min: -5, max: 20_000_000_000 }).map(String)), (s) => {
        const n = Number(s);
        const canonical = /^\d+$/.test(s) && String(n) === s && n >= 1 && n < 1e10;
        const r = parseIdempotencyRetention(s);
        expect(r.seconds !== undefined, s).toBe(canonical);
        if (canonical) expect(r).toEqual({ seconds: n });
        else expect(r.problem).toBeDefined();
      }),
      { seed: 23, numRuns: 3000 },
    );
  });
});
