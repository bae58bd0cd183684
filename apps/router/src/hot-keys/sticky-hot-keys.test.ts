import { describe, expect, it } from 'vitest';
import { FunctionHotKeysSchema, type StickyOwnerLoad } from '@orrery/spec';
import { keyHashOf } from './hot-key-owner.ts';
import { cutKeyHash, MAX_TRACKED_KEY_CHARS, StickyHotKeys, trackedKey } from './sticky-hot-keys.ts';

describe('trackedKey / cutKeyHash', () => {
  it('keeps keys up to the limit whole and cuts longer ones with the whole key’s hash', () => {
    const short = 'x'.repeat(MAX_TRACKED_KEY_CHARS);
    const h = keyHashOf(short);
    expect(trackedKey(short, h.hi, h.lo)).toBe(short);
    expect(cutKeyHash(short)).toBeUndefined();
    const long = 'y'.repeat(5000);
    const lh = keyHashOf(long);
    const cut = trackedKey(long, lh.hi, lh.lo);
    expect(cut.length).toBeLessThanOrEqual(MAX_TRACKED_KEY_CHARS);
    expect(cut.startsWith('y'.repeat(200))).toBe(true);
    expect(cutKeyHash(cut)).toEqual(lh);
    // Two long keys with one prefix stay apart.
    const other = 'y'.repeat(4999) + 'z';
    const oh = keyHashOf(other);
    expect(trackedKey(other, oh.hi, oh.lo)).not.toBe(cut);
  });

  it('a short key that merely looks cut is not read as one', () => {
    expect(cutKeyHash('a…#0123456789abcdef')).toBeUndefined();
    expect(cutKeyHash('y'.repeat(200) + '…#0123456789abcdeZ')).toBeUndefined();
  });
});

describe('StickyHotKeys', () => {
  it('counts per function, with the owner-missed share and each key’s owner', () => {
    let now = 0;
    const hk = new StickyHotKeys({ capacity: 8, halfLifeMs: 10_000 }, () => now);
    for (let i = 0; i < 100; i++) {
      const key = i % 2 === 0 ? 'whale' : `minnow-${i % 10}`;
      const h = keyHashOf(key);
      hk.observe('default', 'cart', key, h.hi, h.lo, key === 'whale' && i % 4 === 0);
      now += 10;
    }
    hk.observe('default', 'other', 'k', 1, 2, false);
    const asked: string[] = [];
    const owner = (ns: string, fn: string, hi: number, lo: number): StickyOwnerLoad | null => {
      asked.push(`${ns}/${fn}:${hi}:${lo}`);
      return { address: '10.0.0.1:8080', revision: `${fn}-00001`, inflight: 1, concurrency: 1 };
    };
    const views = hk.view(owner, keyHashOf, { function: 'cart', limit: 3 });
    expect(views).toHaveLength(1);
    const cart = FunctionHotKeysSchema.parse(views[0]);
    expect(cart.function).toBe('cart');
    expect(cart.keys.map((k) => k.key)[0]).toBe('whale');
    expect(cart.keys).toHaveLength(3);
    expect(cart.keys[0]!.share).toBeCloseTo(0.5, 1);
    expect(cart.keys[0]!.ownerBusyShare).toBeCloseTo(0.5, 1);
    expect(cart.keys[1]!.ownerBusyShare).toBe(0);
    expect(cart.keys[0]!.owner).toEqual({ address: '10.0.0.1:8080', revision: 'cart-00001', inflight: 1, concurrency: 1 });
    const wh = keyHashOf('whale');
    expect(asked[0]).toBe(`default/cart:${wh.hi}:${wh.lo}`);
    expect(hk.view(owner, keyHashOf).map((v) => v.function)).toEqual(['cart', 'other']);
  });

  it('a cut key finds its owner by the hash it carries', () => {
    const hk = new StickyHotKeys({ capacity: 2 }, () => 0);
    const long = 'session-'.repeat(100);
    const h = keyHashOf(long);
    hk.observe('default', 'cart', long, h.hi, h.lo, false);
    const seen: Array<[number, number]> = [];
    const [v] = hk.view((_ns, _fn, hi, lo) => (seen.push([hi, lo]), null), () => {
      throw new Error('a cut key must not be re-hashed from its cut text');
    });
    expect(v!.keys[0]!.key.length).toBeLessThanOrEqual(MAX_TRACKED_KEY_CHARS);
    expect(v!.keys[0]!.owner).toBeNull();
    expect(seen).toEqual([[h.hi, h.lo]]);
  });
});
