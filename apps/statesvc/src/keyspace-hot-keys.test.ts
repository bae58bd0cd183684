import { describe, expect, it } from 'vitest';
import { StateHotKeysResponseSchema } from '@orrery/spec';
import { HttpError } from './http-error.ts';
import { createKeyspaceHotKeys, hotKeysAnswer } from './keyspace-hot-keys.ts';

function filled() {
  const h = createKeyspaceHotKeys();
  for (let i = 0; i < 30; i++) h.observe('shop', 'cart', i % 3 === 0 ? 'hot' : `k${i}`, 1000);
  h.observe('shop', 'other', 'x', 1000);
  h.observe('default', 'counter', 'y', 1000);
  return h;
}

const answer = (q: string) => hotKeysAnswer(filled(), new URLSearchParams(q), 1000);
const refusal = (q: string): string => {
  try {
    answer(q);
  } catch (err) {
    expect(err).toBeInstanceOf(HttpError);
    expect((err as HttpError).code).toBe('bad_request');
    return (err as Error).message;
  }
  throw new Error(`expected ${q} to be refused`);
};

describe('hotKeysAnswer', () => {
  it('answers every keyspace by namespace and name, in the wire shape', () => {
    const a = answer('');
    expect(StateHotKeysResponseSchema.parse(a)).toEqual(a);
    expect(a.keyspaces.map((k) => `${k.namespace}/${k.keyspace}`)).toEqual(['default/counter', 'shop/cart', 'shop/other']);
    expect(a.halfLifeSeconds).toBe(10);
    expect(a.capacity).toBe(128);
    const cart = a.keyspaces[1]!;
    expect(cart.keys[0]).toMatchObject({ key: 'hot', rateError: 0 });
    expect(cart.keys[0]!.share).toBeCloseTo(10 / 30, 5);
  });

  it('filters by namespace and keyspace and cuts at limit', () => {
    expect(answer('scope-namespace=shop').keyspaces.map((k) => k.keyspace)).toEqual(['cart', 'other']);
    const one = answer('scope-namespace=shop&scope-keyspace=cart&limit=2');
    expect(one.keyspaces).toHaveLength(1);
    expect(one.keyspaces[0]!.keys).toHaveLength(2);
    expect(answer('scope-namespace=nobody').keyspaces).toEqual([]);
    expect(answer('limit=50').keyspaces[1]!.keys).toHaveLength(21);
  });

  it.each([
    ['scope-keyspace=cart', /needs scope-namespace/],
    ['scope-namespace=Shop', /DNS-1123/],
    ['scope-namespace=' + 'a'.repeat(64), /DNS-1123/],
    ['scope-namespace=shop&scope-keyspace=bad%23', /keyspace name/],
    ['limit=0', /limit/],
    ['limit=51', /limit/],
    ['limit=abc', /limit/],
    ['limit=', /limit/],
    ['limit=-1', /limit/],
    ['limit=100', /limit/],
  ])('refuses %s', (q, message) => {
    expect(refusal(q)).toMatch(message);
  });
});
