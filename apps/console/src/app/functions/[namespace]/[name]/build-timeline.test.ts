import { describe, expect, it } from 'vitest';
import { buildTimeline, formatDuration } from './build-timeline.ts';

const T0 = '2026-12-03T10:00:00Z';
const at = (s: number) => Date.parse(T0) + s * 1000;

describe('buildTimeline', () => {
  it('has no duration before the build started', () => {
    expect(buildTimeline({}, at(5))).toEqual({ durationMs: undefined, running: false, scaleMs: 10_000, fraction: 0 });
    expect(buildTimeline({ startedAt: 'not a time' }, at(5)).durationMs).toBeUndefined();
  });

  it('measures a finished build from start to finish, on the smallest round scale it fits', () => {
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T10:00:06Z' }, at(999))).toEqual({ durationMs: 6000, running: false, scaleMs: 10_000, fraction: 0.6 });
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T10:00:10Z' }, at(999)).scaleMs).toBe(10_000);
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T10:00:45Z' }, at(999))).toMatchObject({ scaleMs: 60_000, fraction: 0.75 });
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T10:04:00Z' }, at(999)).scaleMs).toBe(300_000);
  });

  it('beyond an hour the scale is whole hours', () => {
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T11:30:00Z' }, at(0))).toMatchObject({ scaleMs: 7_200_000, fraction: 0.75 });
  });

  it('a running build is measured up to now', () => {
    expect(buildTimeline({ startedAt: T0 }, at(20))).toEqual({ durationMs: 20_000, running: true, scaleMs: 30_000, fraction: 20 / 30 });
  });

  it('reads clock skew as zero rather than a negative duration', () => {
    expect(buildTimeline({ startedAt: T0, finishedAt: '2026-12-03T09:59:58Z' }, at(0))).toMatchObject({ durationMs: 0, fraction: 0 });
    expect(buildTimeline({ startedAt: T0 }, at(-3))).toMatchObject({ durationMs: 0, running: true });
  });
});

describe('formatDuration', () => {
  it.each([
    [0, '0 ms'],
    [850, '850 ms'],
    [1000, '1.0 s'],
    [12_345, '12.3 s'],
    [59_999, '59.9 s'],
    [60_000, '1 min 00 s'],
    [245_000, '4 min 05 s'],
    [3_720_000, '1 h 02 min'],
  ])('%i ms → %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});
