import { describe, expect, it } from 'vitest';
import { DecayedTopK } from './decayed-top-k.ts';
import { HotKeyTrackers } from './hot-key-trackers.ts';
import { hotKeysView } from './hot-key-view.ts';

const H = 10_000;

describe('hotKeysView', () => {
  it('turns counts into rates, shares, errors and the flagged share', () => {
    const t = new DecayedTopK({ capacity: 2, halfLifeMs: H });
    // 200 s of 10 requests/s: 6 for "hot" (3 of them flagged), 4 spread over two cold keys.
    let now = 0;
    for (let s = 0; s < 200; s++) {
      for (let i = 0; i < 6; i++) t.observe('hot', now, i % 2 === 0);
      for (let i = 0; i < 4; i++) t.observe(`cold-${i % 2}`, now);
      now += 1000;
    }
    const at = now - 1000;
    const v = hotKeysView(t, at, 5);
    // Read right after a burst the decayed sum is a few % above the flow's (the factor assumes a steady flow).
    expect(v.rate / 10).toBeGreaterThan(0.97);
    expect(v.rate / 10).toBeLessThan(1.05);
    expect(v.keys[0]).toMatchObject({ key: 'hot' });
    expect(v.keys[0]!.rate / 6).toBeGreaterThan(0.97);
    expect(v.keys[0]!.rate / 6).toBeLessThan(1.05);
    expect(v.keys[0]!.share).toBeCloseTo(0.6, 3);
    expect(v.keys[0]!.rateError).toBe(0);
    expect(v.keys[0]!.flaggedShare).toBeCloseTo(0.5, 3);
    // Two counters, three keys: the second counter churns between the cold keys, and says so.
    expect(v.keys).toHaveLength(2);
    expect(v.keys[1]!.rateError).toBeGreaterThan(0);
    expect(v.boundRate).toBe(v.keys[1]!.rate);
    expect(v.boundRate).toBeLessThanOrEqual(v.rate / 2);
  });

  it('an empty summary answers zeros', () => {
    expect(hotKeysView(new DecayedTopK({ capacity: 2, halfLifeMs: H }), 0, 10)).toEqual({ rate: 0, boundRate: 0, keys: [] });
  });

  it('respects the limit', () => {
    const t = new DecayedTopK({ capacity: 8, halfLifeMs: H });
    for (let i = 0; i < 8; i++) t.observe(`k${i}`, 0);
    expect(hotKeysView(t, 0, 3).keys).toHaveLength(3);
  });
});

describe('HotKeyTrackers', () => {
  it('keeps one summary per stream and views them sorted, filtered by namespace and name', () => {
    const h = new HotKeyTrackers({ capacity: 4, halfLifeMs: H });
    h.observe('shop', 'cart', 'a', 0);
    h.observe('default', 'counter', 'x', 0);
    h.observe('shop', 'cart', 'a', 0);
    h.observe('shop', 'alpha', 'b', 0);
    expect(h.view(0, 10).map((v) => `${v.namespace}/${v.name}`)).toEqual(['default/counter', 'shop/alpha', 'shop/cart']);
    expect(h.view(0, 10, { namespace: 'shop' }).map((v) => v.name)).toEqual(['alpha', 'cart']);
    const cart = h.view(0, 10, { namespace: 'shop', name: 'cart' });
    expect(cart).toHaveLength(1);
    expect(cart[0]!.keys.map((k) => k.key)).toEqual(['a']);
    expect(h.view(0, 10, { namespace: 'none' })).toEqual([]);
    expect(h.get('shop', 'cart')!.size).toBe(1);
    expect(h.get('shop', 'nope')).toBeUndefined();
  });

  it('bounds the number of streams: a new one replaces the coldest', () => {
    const h = new HotKeyTrackers({ capacity: 4, halfLifeMs: H, maxTrackers: 3 });
    for (let i = 0; i < 10; i++) h.observe('ns', 'busy', 'k', 0);
    for (let i = 0; i < 5; i++) h.observe('ns', 'medium', 'k', 0);
    h.observe('ns', 'quiet', 'k', 0);
    h.observe('ns', 'new', 'k', 0);
    expect(h.size).toBe(3);
    expect(h.evictions).toBe(1);
    expect(h.view(0, 1).map((v) => v.name)).toEqual(['busy', 'medium', 'new']);
    // Later, "busy" has gone cold (decayed) while "medium" and "new" kept going: busy goes next.
    for (let i = 0; i < 20; i++) {
      h.observe('ns', 'medium', 'k', 200_000);
      h.observe('ns', 'new', 'k', 200_000);
    }
    h.observe('ns', 'newer', 'k', 200_000);
    expect(h.view(200_000, 1).map((v) => v.name)).toEqual(['medium', 'new', 'newer']);
  });

  it('memory stays within maxTrackers × capacity with many streams and keys', () => {
    const h = new HotKeyTrackers({ capacity: 16, halfLifeMs: H, maxTrackers: 8 });
    for (let i = 0; i < 20_000; i++) h.observe(`ns-${i % 13}`, `ks-${i % 29}`, `key-${i}`, i);
    const m = h.memory();
    expect(m.trackers).toBeLessThanOrEqual(8);
    expect(m.keys).toBeLessThanOrEqual(8 * 16);
    expect(m.maxKeys).toBe(128);
    expect(h.evictions).toBeGreaterThan(0);
  });

  it('refuses bad bounds at construction', () => {
    expect(() => new HotKeyTrackers({ maxTrackers: 0 })).toThrow(/maxTrackers/);
    expect(() => new HotKeyTrackers({ capacity: 0 })).toThrow(/capacity/);
    expect(() => new HotKeyTrackers({ halfLifeMs: -1 })).toThrow(/halfLifeMs/);
  });
});
