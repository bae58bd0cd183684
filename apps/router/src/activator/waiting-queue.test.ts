import { describe, expect, it } from 'vitest';
import { WaitingQueue } from './waiting-queue.ts';

const w = (id: number) => ({ id, done: false });

describe('WaitingQueue', () => {
  it('releases waiters in arrival order and stops at the first that cannot go', () => {
    const q = new WaitingQueue<ReturnType<typeof w>>(10);
    const items = [1, 2, 3, 4].map(w);
    for (const i of items) expect(q.push(i)).toBe(true);
    let slots = 2;
    const order: number[] = [];
    expect(q.drain((x) => (slots-- > 0 ? (order.push(x.id), true) : false))).toBe(2);
    expect(order).toEqual([1, 2]);
    expect(q.size).toBe(2);
    slots = 5;
    q.drain((x) => (slots-- > 0 ? (order.push(x.id), true) : false));
    expect(order).toEqual([1, 2, 3, 4]);
    expect(q.size).toBe(0);
  });

  it('a waiter granted once and pushed again (its worker died after admitting it) is granted again', () => {
    const q = new WaitingQueue<ReturnType<typeof w>>(10);
    const a = w(1);
    q.push(a);
    expect(q.drain(() => true)).toBe(1);
    expect(a.done).toBe(true);
    expect(q.push(a)).toBe(true);
    expect(q.size).toBe(1);
    const seen: number[] = [];
    expect(q.drain((x) => (seen.push(x.id), true))).toBe(1);
    expect(seen).toEqual([1]);
    expect(q.size).toBe(0);
    // Also after a cancel (a waiter that left by timeout is not pushed again, but the queue must not care).
    const b = w(2);
    q.push(b);
    q.cancel(b);
    expect(q.push(b)).toBe(true);
    expect(q.size).toBe(1);
    expect(q.drain(() => true)).toBe(1);
  });

  it('is bounded and cancelled waiters free their place and are skipped', () => {
    const q = new WaitingQueue<ReturnType<typeof w>>(2);
    const [a, b, c] = [1, 2, 3].map(w);
    expect(q.push(a!)).toBe(true);
    expect(q.push(b!)).toBe(true);
    expect(q.push(c!)).toBe(false);
    q.cancel(a!);
    q.cancel(a!);
    expect(q.size).toBe(1);
    expect(q.push(c!)).toBe(true);
    const seen: number[] = [];
    q.drain((x) => (seen.push(x.id), true));
    expect(seen).toEqual([2, 3]);
  });

  it('stays consistent over many pushes, cancels and drains', () => {
    const q = new WaitingQueue<ReturnType<typeof w>>(100_000);
    const live = new Set<number>();
    for (let i = 0; i < 5000; i++) {
      const x = w(i);
      q.push(x);
      live.add(i);
      if (i % 3 === 0) {
        q.cancel(x);
        live.delete(i);
      }
      if (i % 7 === 0) {
        let n = 2;
        q.drain((y) => (n-- > 0 ? (live.delete(y.id), true) : false));
      }
    }
    expect(q.size).toBe(live.size);
  });
});
