/**
 * What the soak does to the platform and when: every `tickSeconds` each function loses a worker
 * (SIGKILL) or gains one (a higher minScale), the two alternating per function and staggered
 * across functions so that each tick kills in half of them and adds in the other half; every
 * `shiftSeconds` the canary's traffic split moves to the next step of a cycle.
 */
export type ChurnKind = 'kill' | 'add';

export interface ChurnAction {
  function: string;
  kind: ChurnKind;
}

/** Actions of tick `tick` (0-based: the first one comes `tickSeconds` into the load). */
export function churnActions(tick: number, functions: readonly string[]): ChurnAction[] {
  return functions.map((fn, i) => ({ function: fn, kind: (tick + i) % 2 === 0 ? 'kill' : 'add' }));
}

/**
 * The minScale an "add" sets: one more than now, up to `maxScale`; at the top it drops back to
 * `base` (the manifest's own value) so the next adds have room again. `lowered` says the step was
 * the drop, for the log.
 */
export function nextMinScale(current: number, base: number, maxScale: number): { minScale: number; lowered: boolean } {
  if (current + 1 <= maxScale) return { minScale: current + 1, lowered: false };
  return { minScale: Math.min(base, maxScale), lowered: true };
}

/** The stable revision's percent at shift `n` (the canary gets the rest): 90 → 50 → 10 → 50 → 90 … */
export const TRAFFIC_CYCLE = [90, 50, 10, 50] as const;

export function stablePercentAt(shift: number): number {
  return TRAFFIC_CYCLE[((shift % TRAFFIC_CYCLE.length) + TRAFFIC_CYCLE.length) % TRAFFIC_CYCLE.length]!;
}

/** How many churn ticks and traffic shifts fall inside a load of `seconds`. */
export function scheduleCounts(seconds: number, tickSeconds: number, shiftSeconds: number): { ticks: number; shifts: number } {
  // An action at the load's very end would not be measured: only those strictly inside it.
  return { ticks: Math.max(0, Math.ceil(seconds / tickSeconds) - 1), shifts: Math.max(0, Math.ceil(seconds / shiftSeconds) - 1) };
}
