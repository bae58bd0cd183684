/**
 * Whether a sampled series (resident memory, open file descriptors) stayed flat after warm-up:
 * the first window after warm-up against the last window, each summed up by one statistic.
 * Memory takes the median, so one garbage collection does not decide. Descriptors take the
 * floor (the window's smallest count): a router's count swings with the connections in flight
 * (38 to 173 within one minute of the soak), while a leaked descriptor is never closed and so
 * raises the floor. Only growth counts against it: a leak grows, and what the runtime hands back
 * is no failure.
 */
export interface Sample {
  /** Seconds since the soak's load started. */
  t: number;
  value: number;
}

export interface Flatness {
  /** The first window after warm-up, summed up (NaN when it holds no sample). */
  first: number;
  /** The last window, summed up. */
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
  /** Growth always allowed, in the series' own unit (0 for bytes; the soak allows 3 descriptors). */
  minSlack?: number;
  /** How a window is summed up: its median (default) or its floor. */
  statistic?: 'median' | 'floor';
}

export function median(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** The smallest value (NaN for none). */
export function floor(xs: readonly number[]): number {
  return xs.length === 0 ? Number.NaN : Math.min(...xs);
}

export function flatness(samples: readonly Sample[], w: FlatnessWindows): Flatness {
  const firstWindow = samples.filter((s) => s.t >= w.warmupSeconds && s.t < w.warmupSeconds + w.windowSeconds).map((s) => s.value);
  const lastWindow = samples.filter((s) => s.t > w.totalSeconds - w.windowSeconds && s.t <= w.totalSeconds).map((s) => s.value);
  const summary = w.statistic === 'floor' ? floor : median;
  const first = summary(firstWindow);
  const last = summary(lastWindow);
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
 * The floor of each `stretchSeconds` stretch from `fromSeconds` on, in order (a stretch with no
 * sample is left out): printed when a descriptor check misses, because one window's floor can
 * catch connections that are only busy then (upstream keep-alive connections follow the number
 * of workers), while a leak raises every later stretch's floor.
 */
export function floorsByStretch(samples: readonly Sample[], fromSeconds: number, stretchSeconds: number): number[] {
  const stretches = new Map<number, number>();
  for (const s of samples) {
    if (s.t < fromSeconds) continue;
    const k = Math.floor((s.t - fromSeconds) / stretchSeconds);
    const seen = stretches.get(k);
    if (seen === undefined || s.value < seen) stretches.set(k, s.value);
  }
  return [...stretches].sort((a, b) => a[0] - b[0]).map(([, v]) => v);
}

/**
 * The windows for a soak of `totalSeconds`: the first sixth is warm-up (5 minutes of the
 * 30-minute run), then one-minute windows; a short run takes the rest in thirds so the two
 * windows never overlap. Why that long: under the soak's load the routers' and statesvc's V8
 * heaps take 2–3 minutes to size their young generation (heap total 41 → 60 MB while the heap
 * in use stays at 22–38 MB; docs/performance.md "soak"), and a one-minute warm-up measured that
 * sizing as growth.
 */
export function flatnessWindows(totalSeconds: number): { warmupSeconds: number; windowSeconds: number } {
  const warmupSeconds = Math.round(totalSeconds / 6);
  const windowSeconds = Math.min(60, Math.floor((totalSeconds - warmupSeconds) / 3));
  return { warmupSeconds, windowSeconds };
}

/**
 * The windows for the descriptor checks: the same warm-up, then the first and the last third of
 * the rest, each summed up by its floor. A one-minute window's floor followed the churn: with
 * workers killed and added every 10 s a router holds an upstream keep-alive connection per live
 * worker, and the 30-minute runs of 2026-12-05 saw per-2-minute floors of 36–43 swing up and
 * down with no trend, so the last minute alone could land 4 above the first. Over a third of
 * the run (~8 minutes) the floor is the process's idle set; a leaked descriptor is never closed
 * and raises every later floor, so it still shows.
 */
export function descriptorWindows(totalSeconds: number): { warmupSeconds: number; windowSeconds: number } {
  const { warmupSeconds } = flatnessWindows(totalSeconds);
  return { warmupSeconds, windowSeconds: Math.floor((totalSeconds - warmupSeconds) / 3) };
}
