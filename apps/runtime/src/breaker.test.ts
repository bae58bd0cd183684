import { describe, expect, it } from 'vitest';
import { BreakerError, ConcurrencyBreaker, type Release } from './breaker.ts';

const tick = () => new Promise((r) => setImmediate(r));

describe('ConcurrencyBreaker', () => {
  it('admits up to the limit at once, queues the rest, refuses beyond 10× the limit', async () => {
    const b = new ConcurrencyBreaker({ limit: 2 });
    expect(b.queueDepth).toBe(20);
    const held = await Promise.all([b.acquire(), b.acquire()]);
    expect(b.inFlight).toBe(2);
    const waiting = Array.from({ length: 20 }, () => b.acquire());
    expect(b.queued).toBe(20);
    await expect(b.acquire()).rejects.toMatchObject({ code: 'queue_full' });
    held.forEach((r) => r());
    // The slots went to the two oldest waiters; the count of running holders is unchanged.
    expect(b.inFlight).toBe(2);
    expect(b.queued).toBe(18);
    const first = await waiting[0]!;
    const second = await waiting[1]!;
    first();
    second();
    expect(b.queued).toBe(16);
  });

  it('serves waiters in FIFO order', async () => {
    const b = new ConcurrencyBreaker({ limit: 1 });
    const order: number[] = [];
    const r0 = await b.acquire();
    const waiters = [1, 2, 3].map((n) =>
      b.acquire().then((release) => {
        order.push(n);
        release();
      }),
    );
    r0();
    await Promise.all(waiters);
    expect(order).toEqual([1, 2, 3]);
    expect(b.inFlight).toBe(0);
  });

  it('never lets more than the limit hold a slot, under random interleaving', async () => {
    const b = new ConcurrencyBreaker({ limit: 3, queueDepth: 1000 });
    let holding = 0;
    let peak = 0;
    await Promise.all(
      Array.from({ length: 200 }, async (_, i) => {
        const release = await b.acquire();
        holding++;
        peak = Math.max(peak, holding);
        for (let k = 0; k < i % 4; k++) await tick();
        holding--;
        release();
      }),
    );
    expect(peak).toBe(3);
    expect(b.inFlight).toBe(0);
  });

  it('limit 0 is unlimited and still counts holders', async () => {
    const b = new ConcurrencyBreaker({ limit: 0 });
    const held = await Promise.all(Array.from({ length: 500 }, () => b.acquire()));
    expect(b.inFlight).toBe(500);
    expect(b.queued).toBe(0);
    held.forEach((r) => r());
    expect(b.inFlight).toBe(0);
  });

  it('release is idempotent', async () => {
    const b = new ConcurrencyBreaker({ limit: 1 });
    const r = await b.acquire();
    const next = b.acquire();
    r();
    r();
    const r2: Release = await next;
    expect(b.inFlight).toBe(1);
    r2();
    expect(b.inFlight).toBe(0);
  });

  it('an aborted waiter leaves the queue and is rejected as cancelled', async () => {
    const b = new ConcurrencyBreaker({ limit: 1 });
    const r = await b.acquire();
    const ac = new AbortController();
    const p = b.acquire(ac.signal);
    const later = b.acquire();
    expect(b.queued).toBe(2);
    ac.abort();
    await expect(p).rejects.toBeInstanceOf(BreakerError);
    await expect(p).rejects.toMatchObject({ code: 'cancelled' });
    expect(b.queued).toBe(1);
    r();
    const r2 = await later;
    expect(b.inFlight).toBe(1);
    r2();
    await expect(b.acquire(AbortSignal.abort())).rejects.toMatchObject({ code: 'cancelled' });
  });

  it('rejects a bad limit', () => {
    expect(() => new ConcurrencyBreaker({ limit: -1 })).toThrow(RangeError);
    expect(() => new ConcurrencyBreaker({ limit: 1.5 })).toThrow(RangeError);
  });
});
