/**
 * Which churn action each failed request followed: the latest action on the same function no
 * more than `windowSeconds` before it (a SIGKILL's in-flight requests fail at once; an add's
 * rollout moves traffic seconds later). Tells "the platform fails requests when a worker dies"
 * apart from failures nothing explains.
 */
export interface TimedAction {
  /** Seconds on the load's clock. */
  t: number;
  function?: string;
  kind: string;
}

export interface TimedFailure {
  t: number;
  target: string;
}

/** Failures per kind of the action they followed; `none` for the unexplained. */
export function attributeFailures(failures: readonly TimedFailure[], actions: readonly TimedAction[], windowSeconds: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const fail of failures) {
    let best: TimedAction | undefined;
    for (const a of actions) {
      if (a.function !== fail.target || a.t > fail.t || fail.t - a.t > windowSeconds) continue;
      if (!best || a.t > best.t) best = a;
    }
    const kind = best?.kind ?? 'none';
    out.set(kind, (out.get(kind) ?? 0) + 1);
  }
  return out;
}
