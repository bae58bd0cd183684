import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { clientKey, WatchLimiter } from './watch-limits.ts';

describe('watch limits', () => {
  it('caps streams per client (429 too_many_watches) before the total (503 watch_capacity_reached)', () => {
    const l = new WatchLimiter({ maxWatches: 3, maxWatchesPerClient: 2 });
    const a1 = l.acquire('a');
    const a2 = l.acquire('a');
    expect(a1.ok && a2.ok).toBe(true);
    const a3 = l.acquire('a');
    expect(a3).toMatchObject({ ok: false, code: 'too_many_watches', retryAfterSeconds: 5 });
    expect(!a3.ok && a3.message).toContain('max_watches_per_client = 2');
    expect(l.acquire('b').ok).toBe(true);
    const c = l.acquire('c');
    expect(c).toMatchObject({ ok: false, code: 'watch_capacity_reached' });
    expect(!c.ok && c.message).toContain('max_watches = 3');
    expect(l.total).toBe(3);
  });

  it('freeing a stream lets a new one in; release is idempotent', () => {
    const l = new WatchLimiter({ maxWatches: 1, maxWatchesPerClient: 1 });
    const s = l.acquire('a');
    expect(l.acquire('a').ok).toBe(false);
    if (!s.ok) throw new Error('first slot refused');
    s.release();
    s.release();
    expect(l.total).toBe(0);
    expect(l.countOf('a')).toBe(0);
    expect(l.acquire('b').ok).toBe(true);
    expect(l.total).toBe(1);
  });

  it('0 means no cap', () => {
    const l = new WatchLimiter({ maxWatches: 0, maxWatchesPerClient: 0 });
    for (let i = 0; i < 1000; i++) expect(l.acquire('a').ok).toBe(true);
  });

  it('accounting stays exact under any sequence of acquires and releases (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'c'), fc.nat(20)), { maxLength: 200 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 3 }), (ops, max, perClient) => {
        const l = new WatchLimiter({ maxWatches: max, maxWatchesPerClient: perClient });
        const held: Array<{ client: string; release: () => void }> = [];
        for (const [take, client, pick] of ops) {
          if (take) {
            const s = l.acquire(client);
            const mine = held.filter((h) => h.client === client).length;
            expect(s.ok).toBe(mine < perClient && held.length < max);
            if (s.ok) held.push({ client, release: s.release });
          } else if (held.length) {
            const [h] = held.splice(pick % held.length, 1);
            h!.release();
            h!.release();
          }
          expect(l.total).toBe(held.length);
          for (const c of ['a', 'b', 'c']) expect(l.countOf(c)).toBe(held.filter((h) => h.client === c).length);
        }
      }),
    );
  });

  it('one client is one key whether it arrives over IPv4 or IPv4-mapped IPv6', () => {
    expect(clientKey('::ffff:10.0.0.7')).toBe('10.0.0.7');
    expect(clientKey('10.0.0.7')).toBe('10.0.0.7');
    expect(clientKey('::1')).toBe('::1');
    expect(clientKey(undefined)).toBe('unknown');
  });
});
