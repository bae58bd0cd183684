import { describe, expect, it } from 'vitest';
import { HttpError } from './http-error.ts';
import { idempotencyKeyOf, idempotencyRequestHash, type IdempotentWrite } from './idempotent-request.ts';

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
    const base: IdempotentWrite = { op: 'put', key: 'cart/1', value: '{"n":1}', ifVersion: 7, ttlSeconds: 60 };
    const h = idempotencyRequestHash(base);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(idempotencyRequestHash({ ...base })).toBe(h);
    const variants: IdempotentWrite[] = [
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
    ];
    const hashes = variants.map(idempotencyRequestHash);
    expect(new Set([h, ...hashes]).size).toBe(variants.length + 1);
    // Fields cannot bleed into each other: a key ending like a value is not that value.
    expect(idempotencyRequestHash({ op: 'put', key: 'a","b', value: 'c' })).not.toBe(idempotencyRequestHash({ op: 'put', key: 'a', value: 'b","c' }));
  });
});
