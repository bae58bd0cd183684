import { describe, expect, it } from 'vitest';
import { ConcurrencyMeter } from './concurrency-meter.ts';

function fakeClock(start = 10_000) {
  let t = start;
  return { now: () => t, set: (v: number) => (t = v), add: (d: number) => (t += d) };
}

describe('ConcurrencyMeter', () => {
  it('averages concurrency over the window, weighted by time', () => {
    const c = fakeClock(10_000);
    const m = new ConcurrencyMeter(c.now);
    m.arrive(); // 1 from 10_000
    c.set(10_250);
    m.arrive(); // 2 from 10_250
    c.set(10_750);
    m.depart(); // 1 from 10_750
    c.set(11_000);
    const w = m.lastWindow();
    // 250 ms at 1, 500 ms at 2, 250 ms at 1 → 1.5
    expect(w).toEqual({ start: 10_000, end: 11_000, averageConcurrency: 1.5, requestCount: 2 });
  });

  it('carries a constant level into the next window and through idle windows', () => {
    const c = fakeClock(0);
    const m = new ConcurrencyMeter(c.now);
    c.set(500);
    m.arrive();
    m.arrive();
    m.arrive(); // 3 from 500
    c.set(1_500);
    expect(m.lastWindow()).toMatchObject({ start: 0, end: 1000, averageConcurrency: 1.5, requestCount: 3 });
    c.set(2_000);
    expect(m.lastWindow()).toMatchObject({ start: 1000, end: 2000, averageConcurrency: 3, requestCount: 0 });
    c.set(7_300); // several whole windows with no event
    expect(m.lastWindow()).toMatchObject({ start: 6000, end: 7000, averageConcurrency: 3, requestCount: 0 });
    m.depart();
    m.depart();
    m.depart();
    c.set(8_000);
    // 300 ms at 3, then 0
    expect(m.lastWindow().averageConcurrency).toBeCloseTo(0.9, 10);
    expect(m.current).toBe(0);
    expect(m.totalRequests).toBe(3);
  });

  it('aligns windows to the clock and starts with an empty window', () => {
    const c = fakeClock(12_345);
    const m = new ConcurrencyMeter(c.now, 1000);
    expect(m.lastWindow()).toEqual({ start: 11_000, end: 12_000, averageConcurrency: 0, requestCount: 0 });
  });

  it('counts short requests that come and go inside one window', () => {
    const c = fakeClock(0);
    const m = new ConcurrencyMeter(c.now);
    for (let i = 0; i < 10; i++) {
      c.set(i * 100);
      m.arrive();
      c.add(10);
      m.depart();
    }
    c.set(1000);
    const w = m.lastWindow();
    expect(w.requestCount).toBe(10);
    expect(w.averageConcurrency).toBeCloseTo(0.1, 10);
  });

  it('never goes negative on an extra depart', () => {
    const c = fakeClock(0);
    const m = new ConcurrencyMeter(c.now);
    m.depart();
    expect(m.current).toBe(0);
  });
});
