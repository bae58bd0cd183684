import { describe, expect, it } from 'vitest';
import { type SeriesEntry, type TokenBucket, nextSeriesWrite } from './event-series.ts';

const LIMITS = { burst: 3, refillMs: 1000 };
const T0 = Date.parse('2026-12-01T00:00:00Z');

describe('nextSeriesWrite', () => {
  it('creates the first occurrence and bumps the count of the same Event on a repeat', () => {
    const first = nextSeriesWrite(undefined, undefined, 'f.abc', T0, LIMITS);
    expect(first.write).toBe('create');
    expect(first.entry).toEqual({ name: 'f.abc', count: 1, firstTimestamp: '2026-12-01T00:00:00.000Z', lastTimestamp: '2026-12-01T00:00:00.000Z', written: true });
    const again = nextSeriesWrite(first.entry, first.bucket, 'f.abc', T0 + 500, LIMITS);
    expect(again.write).toBe('bump');
    expect(again.entry).toMatchObject({ name: 'f.abc', count: 2, firstTimestamp: '2026-12-01T00:00:00.000Z', lastTimestamp: '2026-12-01T00:00:00.500Z' });
  });

  it('drops writes over the per-object burst, still counting them, and writes again once a token refills', () => {
    let entry: SeriesEntry | undefined;
    let bucket: TokenBucket | undefined;
    const writes: string[] = [];
    for (let i = 0; i < 5; i++) {
      const d = nextSeriesWrite(entry, bucket, 'x', T0 + i, LIMITS);
      writes.push(d.write);
      entry = d.entry;
      bucket = d.bucket;
    }
    expect(writes).toEqual(['create', 'bump', 'bump', 'drop', 'drop']);
    expect(entry!.count).toBe(5);
    const later = nextSeriesWrite(entry, bucket, 'x', T0 + 1005, LIMITS);
    expect(later.write).toBe('bump');
    expect(later.entry.count).toBe(6); // the dropped repeats are in the count the write carries
  });

  it('creates a series whose first write was dropped (never written) at its next allowed occurrence', () => {
    const empty = { tokens: 0, updatedMs: T0 };
    const dropped = nextSeriesWrite(undefined, empty, 'y', T0, LIMITS);
    expect(dropped.write).toBe('drop');
    expect(dropped.entry.written).toBe(false);
    const next = nextSeriesWrite(dropped.entry, dropped.bucket, 'y', T0 + 1000, LIMITS);
    expect(next.write).toBe('create');
    expect(next.entry).toMatchObject({ count: 2, firstTimestamp: '2026-12-01T00:00:00.000Z', written: true });
  });

  it('never holds more than the burst, however long the object was quiet', () => {
    const d = nextSeriesWrite(undefined, { tokens: 0, updatedMs: T0 }, 'z', T0 + 1_000_000, LIMITS);
    expect(d.bucket.tokens).toBe(LIMITS.burst - 1);
  });
});
