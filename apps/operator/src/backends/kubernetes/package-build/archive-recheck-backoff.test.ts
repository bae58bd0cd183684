import { describe, expect, it } from 'vitest';
import { ARCHIVE_RECHECK_MAX_MS, ARCHIVE_RECHECK_MIN_MS, archiveCheckDue, archiveMissed, archiveRecheckDelayMs } from './archive-recheck-backoff.ts';

describe('archiveRecheckDelayMs', () => {
  it('waits 5 s after the first miss, doubling, capped at 5 min', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(archiveRecheckDelayMs)).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000]);
    expect(ARCHIVE_RECHECK_MIN_MS).toBe(5_000);
    expect(ARCHIVE_RECHECK_MAX_MS).toBe(300_000);
  });

  it('stays at the cap however long the archive is missing', () => {
    expect(archiveRecheckDelayMs(10_000)).toBe(ARCHIVE_RECHECK_MAX_MS);
  });
});

describe('archiveMissed', () => {
  it('counts a first miss from the time it was seen', () => {
    expect(archiveMissed(undefined, 3, 1_000)).toEqual({ generation: 3, misses: 1, nextAtMs: 6_000 });
  });

  it('counts further misses of the same generation and waits longer each time', () => {
    let r = archiveMissed(undefined, 1, 0);
    r = archiveMissed(r, 1, r.nextAtMs);
    expect(r).toEqual({ generation: 1, misses: 2, nextAtMs: 5_000 + 10_000 });
    r = archiveMissed(r, 1, r.nextAtMs);
    expect(r).toEqual({ generation: 1, misses: 3, nextAtMs: 15_000 + 20_000 });
  });

  it('starts over when the spec changed (another generation)', () => {
    const late = { generation: 1, misses: 9, nextAtMs: 10_000_000 };
    expect(archiveMissed(late, 2, 50_000)).toEqual({ generation: 2, misses: 1, nextAtMs: 55_000 });
  });
});

describe('archiveCheckDue', () => {
  const r = { generation: 4, misses: 2, nextAtMs: 20_000 };

  it('looks at once when it never looked', () => {
    expect(archiveCheckDue(undefined, 4, 0)).toBe(true);
  });

  it('waits until the time it set (other events in between do not look)', () => {
    expect(archiveCheckDue(r, 4, 19_999)).toBe(false);
    expect(archiveCheckDue(r, 4, 20_000)).toBe(true);
    expect(archiveCheckDue(r, 4, 25_000)).toBe(true);
  });

  it('looks at once after a spec change, whatever the wait', () => {
    expect(archiveCheckDue(r, 5, 0)).toBe(true);
  });
});
