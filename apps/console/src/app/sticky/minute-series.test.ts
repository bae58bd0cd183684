import { describe, expect, it } from 'vitest';
import { fillMinutes } from './minute-series.ts';

describe('fillMinutes', () => {
  it('gives one point per minute, zero where no rollup exists', () => {
    const now = new Date('2026-01-01T10:05:30Z');
    const out = fillMinutes([{ minute: '2026-01-01T10:03:00.000Z', requests: 5, stickyRequests: 4, missingKeys: 1, teleports: 2 }], now, 4);
    expect(out.map((p) => p.minute)).toEqual(['2026-01-01T10:02:00.000Z', '2026-01-01T10:03:00.000Z', '2026-01-01T10:04:00.000Z', '2026-01-01T10:05:00.000Z']);
    expect(out.map((p) => p.teleports)).toEqual([0, 2, 0, 0]);
    expect(out[1]!.requests).toBe(5);
  });

  it('drops rollups older than the window', () => {
    const out = fillMinutes([{ minute: '2026-01-01T09:00:00.000Z', requests: 1, stickyRequests: 1, missingKeys: 0, teleports: 9 }], new Date('2026-01-01T10:00:00Z'), 60);
    expect(out).toHaveLength(60);
    expect(out.reduce((s, p) => s + p.teleports, 0)).toBe(0);
  });
});
