import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.ts';
import { idempotencyKeyOf, idempotencyRequestHash, idempotencyRetentionOf, type IdempotentCall } from './idempotent-request.ts';

describe('idempotent request', () => {
  it('a bad Idempotency-Key is 400 idempotency_key_invalid; none is undefined', () => {
    expect(idempotencyKeyOf(undefined)).toBeUndefined();
    expect(idempotencyKeyOf('"abc"')).toBe('abc');
    for (const bad of ['', 'a b', ['a', 'b']]) {
      const err = (() => {
        try {
          idempotencyKeyOf(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).code).toBe('idempotency_key_invalid');
      expect((err as HttpError).status).toBe(400);
    }
  });

  it('the digest changes with every part of the request and with nothing else', () => {
    const base: IdempotentCall = { op: 'put', key: 'cart/1', value: '{"n":1}', ifVersion: 7, ttlSeconds: 60 };
    const h = idempotencyRequestHash(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyRequestHash({ ...base })).toBe(h);
    const variants: IdempotentCall[] = [
      { ...base, op: 'cas' },
      { ...base, key: 'cart/2' },
      { ...base, value: '{"n":2}' },
      { ...base, value: '{ "n":1}' },
      { ...base, ifVersion: 8 },
      { ...base, ifVersion: undefined },
      { ...base, ifVersion: 0 },
      { ...base, ttlSeconds: undefined },
      { ...base, ttlSeconds: 0 },
      { op: 'delete', key: 'cart/1', ifVersion: 7 },
      { op: 'get', key: 'cart/1' },
    ];
    const hashes = variants.map(idempotencyRequestHash);
    expect(new Set([h, ...hashes]).size).toBe(variants.length + 1);
    // Fields cannot bleed into each other: a key ending like a value is not that value.
    expect(idempotencyRequestHash({ op: 'put', key: 'a","b', value: 'c' })).not.toBe(idempotencyRequestHash({ op: 'put', key: 'a', value: 'b","c' }));
  });

  it('a read is its key alone: a write of the same key, or a read of another, is another request', () => {
    const read = idempotencyRequestHash({ op: 'get', key: 'cart/1' });
    expect(idempotencyRequestHash({ op: 'get', key: 'cart/1' })).toBe(read);
    expect(idempotencyRequestHash({ op: 'get', key: 'cart/2' })).not.toBe(read);
    expect(idempotencyRequestHash({ op: 'delete', key: 'cart/1' })).not.toBe(read);
  });

  it('X-Orrery-Idempotency-Retention: seconds as ms, absent as undefined, anything else 400 idempotency_retention_invalid', () => {
    expect(idempotencyRetentionOf(undefined)).toBeUndefined();
    expect(idempotencyRetentionOf('1')).toBe(1000);
    expect(idempotencyRetentionOf('9999999999')).toBe(9_999_999_999_000);
    for (const bad of ['0', '-1', '1.5', '01', '12345678901', ['1', '1']]) {
      const err = (() => {
        try {
          idempotencyRetentionOf(bad);
        } catch (e) {
          return e;
        }
      })();
      expect(err).toBeInstanceOf(HttpError);
      expect([(err as HttpError).code, (err as HttpError).status]).toEqual(['idempotency_retention_invalid', 400]);
    }
  });
});
