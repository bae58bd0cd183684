import { describe, expect, it } from 'vitest';
import { type BackoffEntry, MAX_BACKOFF_MS, nextRestart } from './crash-backoff.ts';

describe('nextRestart', () => {
  it('restarts the first crash at once, then waits 10 s, 20 s, 40 s … up to 5 min', () => {
    let entry: BackoffEntry | undefined;
    const delays: number[] = [];
    for (let i = 0, t = 0; i < 9; i++, t += 1000) {
      const d = nextRestart(entry, t + (delays.at(-1) ?? 0));
      delays.push(d.delayMs);
      entry = d.entry;
    }
    expect(delays).toEqual([0, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
  });

  it('starts over after a container ran 10 minutes since the last crash', () => {
    const entry: BackoffEntry = { backoffs: 4, lastUpdate: 0 }; // 10 s × 2⁴: the next wait is 160 s
    expect(nextRestart(entry, 2 * MAX_BACKOFF_MS + 1)).toEqual({ delayMs: 0, entry: { backoffs: 0, lastUpdate: 2 * MAX_BACKOFF_MS + 1 } });
    expect(nextRestart(entry, 2 * MAX_BACKOFF_MS).delayMs).toBe(160_000);
  });
});
