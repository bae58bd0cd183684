import { describe, expect, it } from 'vitest';
import { Endpoint } from '../admit/endpoint.ts';
import { hrwOwner } from '../admit/hrw.ts';
import type { FunctionRoute, RevisionRoute } from '../routing/route-table.ts';
import { pickSticky } from '../routing/traffic-pick.ts';
import { keyHashOf, stickyOwnerLoad } from './hot-key-owner.ts';

const rev = (name: string, cc = 2): RevisionRoute => ({ namespace: 'default', function: 'cart', revision: name, key: `default/${name}`, containerConcurrency: cc, timeoutMs: 30_000, replayOnWorkerLoss: false });
const r1 = rev('cart-00001');
const r2 = rev('cart-00002', 0);
const fn: FunctionRoute = {
  namespace: 'default',
  name: 'cart',
  key: 'default/cart',
  weighted: [
    { route: r1, percent: 50, tag: undefined },
    { route: r2, percent: 50, tag: undefined },
  ],
  cumulative: Uint32Array.of(50, 100),
  totalPercent: 100,
  tags: new Map(),
  sticky: { source: 'header', name: 'x-sid' },
};
const addresses = ['127.0.0.1:4001', '127.0.0.1:4002', '127.0.0.1:4003'];
const endpoints = new Map([
  [r1.key, addresses.map((a) => new Endpoint(a))],
  [r2.key, addresses.slice(0, 2).map((a) => new Endpoint(a))],
]);
const ready = (k: string) => endpoints.get(k) ?? [];

describe('stickyOwnerLoad', () => {
  it('is the HRW owner among the ready endpoints of the revision the key picks, with its load', () => {
    for (let i = 0; i < 200; i++) {
      const key = `user-${i}`;
      const h = keyHashOf(key);
      const r = pickSticky(fn, h.hi, h.lo)!;
      const eps = ready(r.key);
      const owner = stickyOwnerLoad(fn, h.hi, h.lo, ready, (x) => x.containerConcurrency)!;
      expect(owner.revision).toBe(r.revision);
      expect(owner.address).toBe(eps.map((e) => e.address)[hrwOwner(key, eps.map((e) => e.address))]);
      expect(owner.concurrency).toBe(r.containerConcurrency);
      expect(owner.inflight).toBe(0);
    }
  });

  it('reports in-flight requests on the owner', () => {
    const h = keyHashOf('user-1');
    const before = stickyOwnerLoad(fn, h.hi, h.lo, ready, () => 2)!;
    const e = [...endpoints.values()].flat().find((x) => x.address === before.address && ready(`default/${before.revision}`).includes(x))!;
    expect(e.tryClaim(2)).toBe(true);
    expect(stickyOwnerLoad(fn, h.hi, h.lo, ready, () => 2)!.inflight).toBe(1);
    e.releaseSlot();
  });

  it('null without a sticky function, a revision or a ready endpoint', () => {
    const h = keyHashOf('k');
    expect(stickyOwnerLoad(undefined, h.hi, h.lo, ready, () => 1)).toBeNull();
    expect(stickyOwnerLoad({ ...fn, sticky: undefined }, h.hi, h.lo, ready, () => 1)).toBeNull();
    expect(stickyOwnerLoad({ ...fn, totalPercent: 0 }, h.hi, h.lo, ready, () => 1)).toBeNull();
    expect(stickyOwnerLoad(fn, h.hi, h.lo, () => [], () => 1)).toBeNull();
  });
});
