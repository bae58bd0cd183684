import { describe, expect, it } from 'vitest';
import type { RouterHotKeysResponse, StickyHotKey } from '@orrery/spec';
import { mergeStickyHotKeys } from './merge-sticky-hot-keys.ts';

const key = (k: string, rate: number, o: Partial<StickyHotKey> = {}): StickyHotKey => ({ key: k, rate, share: 0, rateError: 0, ownerBusyShare: 0, owner: null, ...o });
const owner = (address: string, inflight: number) => ({ address, revision: 'cart-00001', inflight, concurrency: 4 });
const replica = (fns: RouterHotKeysResponse['functions']): RouterHotKeysResponse => ({ routerId: 'r', halfLifeSeconds: 10, capacity: 128, functions: fns });

describe('mergeStickyHotKeys', () => {
  it('sums rates over replicas, recomputes shares, weights the busy share by rate and sums the owner’s in-flight', () => {
    const merged = mergeStickyHotKeys(
      [
        replica([{ namespace: 'default', function: 'cart', rate: 10, boundRate: 0.5, keys: [key('a', 6, { ownerBusyShare: 1, rateError: 0.1, owner: owner('w1', 3) }), key('b', 2)] }]),
        replica([
          { namespace: 'default', function: 'cart', rate: 30, boundRate: 1, keys: [key('b', 12, { owner: owner('w2', 1) }), key('a', 2, { ownerBusyShare: 0, rateError: 0.2, owner: owner('w1', 1) })] },
          { namespace: 'default', function: 'other', rate: 1, boundRate: 0, keys: [key('x', 1)] },
        ]),
      ],
      10,
    );
    expect(merged.map((f) => f.function)).toEqual(['cart', 'other']);
    const cart = merged[0]!;
    expect(cart).toMatchObject({ rate: 40, boundRate: 1.5, replicas: 2 });
    expect(cart.keys.map((k) => k.key)).toEqual(['b', 'a']);
    expect(cart.keys[0]).toMatchObject({ rate: 14, share: 0.35, owner: { address: 'w2', inflight: 1 } });
    expect(cart.keys[1]).toMatchObject({ rate: 8, share: 0.2, rateError: 0.3, ownerBusyShare: 0.75, owner: { address: 'w1', inflight: 4, concurrency: 4 } });
  });

  it('cuts at the limit, orders ties by key, and answers nothing for no replicas', () => {
    const merged = mergeStickyHotKeys([replica([{ namespace: 'n', function: 'f', rate: 3, boundRate: 0, keys: [key('c', 1), key('a', 1), key('b', 1)] }])], 2);
    expect(merged[0]!.keys.map((k) => k.key)).toEqual(['a', 'b']);
    expect(mergeStickyHotKeys([], 5)).toEqual([]);
  });

  it('a zero rate gives zero shares, never NaN', () => {
    const merged = mergeStickyHotKeys([replica([{ namespace: 'n', function: 'f', rate: 0, boundRate: 0, keys: [key('a', 0, { ownerBusyShare: 1 })] }])], 5);
    expect(merged[0]!.keys[0]).toMatchObject({ share: 0, ownerBusyShare: 0 });
  });
});
