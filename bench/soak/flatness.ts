/**
 * Whether a sampled series (resident memory, open file descriptors) stayed flat after warm-up:
 * the median of the first window after warm-up against the median of the last window. Medians,
 * not single samples, so one garbage collection or one in-flight socket does not decide. Only
 * growth counts against it: a leak grows, and memory the runtime hands back is no failure.
 */
export interface Sample {
  /** Seconds since the soak's load started. */
  t: number;
  value: number;
}

export interface Flatness {
  /** Median of the first window after warm-up (NaN when it holds no sample). */
  first: number;
  /** Median of the last window. */
  last: number;
  /** (last − first) / first. */
  change: number;
  /** Growth allowed: `tolerance` of `first`, at least `minSlack` (a count of 30 fds may move by 2). */
  allowed: number;
  flat: boolean;
  samples: { first: number; last: number };
}

export interface FlatnessWindows {
  warmupSeconds: number;
  windowSeconds: number;
  /** Seconds of load in all. */
  totalSeconds: number;
  /** Largest growth allowed, as a fraction of the first window's median (0.1). */
  tolerance: number;
  /** Growth always allowed, in the series' own unit (0 for bytes, 2 for descriptors). */
  minSlack?: number;
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function flatness(samples: readonly Sample[], w: FlatnessWindows): Flatness {
  const firstWindow = samples.filter((s) => s.t >= w.warmupSeconds && s.t < w.warmupSeconds + w.windowSeconds).map((s) => s.value);
  const lastWindow = samples.filter((s) => s.t > w.totalSeconds - w.windowSeconds && s.t <= w.totalSeconds).map((s) => s.value);
  const first = median(firstWindow);
  const last = median(lastWindow);
  const allowed = Math.max(first * w.tolerance, w.minSlack ?? 0);
  return {
    first,
    last,
    change: (last - first) / first,
    allowed,
    // NaN (no samples in a window) compares false: not flat, the table says why.
    flat: last - first <= allowed,
    samples: { first: firstWindow.length, last: lastWindow.length },
  };
}

/**
 * The windows for a soak of `totalSeconds`: a minute of warm-up and one-minute windows for the
 * 30-minute run; a shorter run scales them down (a sixth for warm-up, the rest in thirds) so the
 * two windows never overlap.
 */
export function flatnessWindows(totalSeconds: number): { warmupSeconds: number; windowSeconds: number } {
  const warmupSeconds = Math.min(60, Math.round(totalSeconds / 6));
  const windowSeconds = Math.min(60, Math.floor((totalSeconds - warmupSeconds) / 3));
  return { warmupSeconds, windowSeconds };
}
