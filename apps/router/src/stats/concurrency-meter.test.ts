import { describe, expect, it } from 'vitest';
import { ConcurrencyMeter } from './concurrency-meter.ts';

describe('ConcurrencyMeter', () => {
  it('averages concurrency over time, not over events', () => {
    const m = new ConcurrencyMeter(0);
    m.change(+1, 0); // 1 for 500 ms
    m.change(+1, 500); // 2 for 250 ms
    m.change(-2, 750); // 0 for 250 ms
    m.requests = 2;
    const w = m.roll(1000);
    expect(w.averageConcurrency).toBeCloseTo((1 * 500 + 2 * 250) / 1000, 9);
    expect(w.requests).toBe(2);
    expect(w.windowMs).toBe(1000);
    m.change(+3, 1000);
    expect(m.roll(2000).averageConcurrency).toBe(3);
    expect(m.roll(2000).requests).toBe(0);
  });
});
