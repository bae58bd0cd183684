import { describe, expect, it } from 'vitest';
import { resolveOptions, STATESYNC_DEFAULTS, type StateSyncLogger } from './options.ts';

function logger(): StateSyncLogger & { warnings: string[] } {
  const warnings: string[] = [];
  return { warnings, info: () => undefined, error: () => undefined, warn: (m) => warnings.push(m) };
}

describe('resolveOptions', () => {
  it('fills the seed defaults', () => {
    const o = resolveOptions({ env: {} }, logger());
    expect(o).toEqual({
      syncPeriodMs: 10_000,
      recordTtlSeconds: 120,
      keyPrefix: 'orrery',
      opTimeoutMs: 30_000,
      stopWaitTimeoutMs: 90_000,
      setexChunkSize: 25,
      mgetBatchSize: 200,
      scanCount: 500,
      maxBackoffMs: 60_000,
      warnSnapshotEntries: 10_000,
      warnAverageEntryBytes: 512 * 1024,
    });
    expect(STATESYNC_DEFAULTS.maxBackoffMs).toBe(60_000);
  });

  it('ORRERY_STATESYNC_SYNC_PERIOD replaces the default period only: an explicit syncPeriodMs wins (seed)', () => {
    expect(resolveOptions({ syncPeriodMs: 5_000, env: { ORRERY_STATESYNC_SYNC_PERIOD: '30s' } }, logger()).syncPeriodMs).toBe(5_000);
    expect(resolveOptions({ env: { ORRERY_STATESYNC_SYNC_PERIOD: '30s' } }, logger()).syncPeriodMs).toBe(30_000);
    expect(resolveOptions({ env: { ORRERY_STATESYNC_SYNC_PERIOD: '750' } }, logger()).syncPeriodMs).toBe(750);
    const l = logger();
    expect(resolveOptions({ env: { ORRERY_STATESYNC_SYNC_PERIOD: 'soon' } }, l).syncPeriodMs).toBe(10_000);
    expect(l.warnings.join()).toMatch(/ORRERY_STATESYNC_SYNC_PERIOD/);
  });

  it('ignores a non-positive record TTL and rounds TTLs up to whole seconds', () => {
    expect(resolveOptions({ recordTtlMs: 0, env: {} }, logger()).recordTtlSeconds).toBe(120);
    expect(resolveOptions({ recordTtlMs: -5, env: {} }, logger()).recordTtlSeconds).toBe(120);
    expect(resolveOptions({ recordTtlMs: 1_500, env: {} }, logger()).recordTtlSeconds).toBe(2);
  });

  it('rejects invalid sizes and prefixes with a warning, keeping defaults', () => {
    const l = logger();
    const o = resolveOptions({ setexChunkSize: 0, mgetBatchSize: 2.5, keyPrefix: 'a{b}', env: {} }, l);
    expect(o.setexChunkSize).toBe(25);
    expect(o.mgetBatchSize).toBe(200);
    expect(o.keyPrefix).toBe('orrery');
    expect(l.warnings).toHaveLength(3);
  });
});
