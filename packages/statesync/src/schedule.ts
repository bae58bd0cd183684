/**
 * The sync loop's timing as pure functions (AIBrix syncLoop): a random first delay spreads replicas
 * that start together, ±10 % jitter keeps them from re-aligning, and errors back off exponentially.
 */

export const JITTER_FRACTION = 0.1;

/** First cycle delay in [0, period/2). `random` returns [0, 1). */
export function initialDelayMs(periodMs: number, random: () => number): number {
  return Math.floor(clampUnit(random()) * (periodMs / 2));
}

/** `baseMs` ± 10 %: a value in [0.9·base, 1.1·base). */
export function jitterMs(baseMs: number, random: () => number): number {
  return Math.round(baseMs * (1 - JITTER_FRACTION + 2 * JITTER_FRACTION * clampUnit(random())));
}

/** Next backoff base: the period after a success; after an error, double (at least the period), capped. */
export function nextBackoffMs(currentMs: number, periodMs: number, capMs: number, succeeded: boolean): number {
  if (succeeded) return periodMs;
  return Math.min(Math.max(currentMs, periodMs) * 2, Math.max(capMs, periodMs));
}

/**
 * The wait before the next cycle: the jittered backoff base, never above the cap (so a backed-off
 * loop really waits at most `capMs`). A period longer than the cap is not clipped by it.
 */
export function waitBeforeNextCycleMs(backoffMs: number, periodMs: number, capMs: number, random: () => number): number {
  const wait = jitterMs(backoffMs, random);
  return backoffMs > periodMs ? Math.min(wait, Math.max(capMs, periodMs)) : wait;
}

function clampUnit(x: number): number {
  if (!Number.isFinite(x) || x < 0) return 0;
  return x >= 1 ? 1 - Number.EPSILON : x;
}
