/**
 * When the supervisor restarts a child that exited on its own: exponential backoff (0.5 s,
 * doubling, at most 30 s), back to the first delay once the child had run for 60 s, and a
 * crash-loop limit (5 crashes within 2 minutes: the component stays Degraded). Pure: the
 * supervisor keeps one RestartState per child and passes the clock in.
 */
import { backoffDelay } from '@orrery/spec';

export interface RestartPolicy {
  initialDelayMs: number;
  maxDelayMs: number;
  /** A child that ran this long before crashing starts the backoff again from the first delay. */
  resetAfterMs: number;
  /** This many crashes within crashWindowMs: give up. */
  crashLimit: number;
  crashWindowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  initialDelayMs: 500,
  maxDelayMs: 30_000,
  resetAfterMs: 60_000,
  crashLimit: 5,
  crashWindowMs: 120_000,
};

export interface RestartState {
  /** Restarts since the last reset (the next one is attempt + 1). */
  attempt: number;
  /** Times of the crashes inside the window (oldest first). */
  crashes: number[];
  /** When the current run became ready; undefined while it is not running. */
  startedAt?: number;
}

export const initialRestartState = (): RestartState => ({ attempt: 0, crashes: [] });

export type RestartDecision =
  | { action: 'restart'; delayMs: number; attempt: number; state: RestartState }
  | { action: 'give-up'; reason: string; state: RestartState };

/** The child became ready (again) at `now`. */
export function markStarted(state: RestartState, now: number): RestartState {
  return { ...state, startedAt: now };
}

/** The child exited (or failed to start) at `now`: restart it after a delay, or give up. */
export function decideRestart(state: RestartState, now: number, policy: RestartPolicy = DEFAULT_RESTART_POLICY): RestartDecision {
  const healthyLongEnough = state.startedAt !== undefined && now - state.startedAt >= policy.resetAfterMs;
  const attempt = (healthyLongEnough ? 0 : state.attempt) + 1;
  const crashes = [...state.crashes.filter((t) => now - t < policy.crashWindowMs), now];
  const next: RestartState = { attempt, crashes, startedAt: undefined };
  if (crashes.length >= policy.crashLimit) {
    return { action: 'give-up', reason: `crashed ${crashes.length} times within ${formatDelay(policy.crashWindowMs)}`, state: next };
  }
  const delayMs = backoffDelay(attempt - 1, { initialMs: policy.initialDelayMs, maxMs: policy.maxDelayMs });
  return { action: 'restart', delayMs, attempt, state: next };
}

export function formatDelay(ms: number): string {
  if (ms >= 60_000 && ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Number((ms / 1000).toFixed(1))} s`;
}
