import type { BuildStatus } from '@orrery/spec';

/** Round scales for the duration bar: the smallest one the build fits in is the bar's full width. */
const SCALES_MS = [10_000, 30_000, 60_000, 120_000, 300_000, 600_000, 1_800_000, 3_600_000];

export interface BuildTimeline {
  /** finished − started, or now − started while the build runs; undefined before it started. */
  durationMs: number | undefined;
  /** The build has started and not finished: the duration still grows. */
  running: boolean;
  /** The bar's full width in ms (a round value at least the duration). */
  scaleMs: number;
  /** durationMs / scaleMs, 0…1. */
  fraction: number;
}

/**
 * A build's duration from its status alone, for the duration bar. A clock skew that puts
 * finishedAt before startedAt (or now before startedAt) reads as 0, not a negative bar.
 */
export function buildTimeline(build: Pick<BuildStatus, 'startedAt' | 'finishedAt'>, now: number): BuildTimeline {
  const started = build.startedAt ? Date.parse(build.startedAt) : NaN;
  const finished = build.finishedAt ? Date.parse(build.finishedAt) : NaN;
  if (Number.isNaN(started)) return { durationMs: undefined, running: false, scaleMs: SCALES_MS[0]!, fraction: 0 };
  const running = Number.isNaN(finished);
  const durationMs = Math.max(0, (running ? now : finished) - started);
  const scaleMs = SCALES_MS.find((s) => durationMs <= s) ?? Math.ceil(durationMs / 3_600_000) * 3_600_000;
  return { durationMs, running, scaleMs, fraction: durationMs / scaleMs };
}

/** 850 ms, 12.3 s, 4 min 05 s, 1 h 02 min: a duration people read at a glance. */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(Math.floor(ms / 100) / 10).toFixed(1)} s`;
  const s = Math.floor(ms / 1000);
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}
