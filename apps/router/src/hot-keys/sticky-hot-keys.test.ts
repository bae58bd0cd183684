import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
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

describe('trackedKey and the request head', () => {
  it('a tracked key keeps none of the (much larger) string it was cut from alive', () => {
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    const held: string[] = [];
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < 100; i++) {
      // As a sticky cookie's value is cut out of the whole Cookie header: a view of 20 characters.
      const head = `${i}:${'x'.repeat(100_000)}sticky-key-${String(i).padStart(9, '0')}`;
      const key = head.slice(head.length - 20);
      held.push(trackedKey(key, 0, 0));
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    expect(held[7]).toBe('sticky-key-000000007');
    // 100 heads of 100 kB would be 10 MB.
    expect(grown).toBeLessThan(2_000_000);
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
