/**
 * The soak's closing table: each check with its figure, its goal and PASS/MISS. Correctness
 * checks (failed requests, lost writes) decide the exit code; the resource checks are reported
 * (a leak shows as a MISS) but a shared, busy machine moves them, so they do not fail the run.
 */
export interface Check {
  name: string;
  figure: string;
  goal: string;
  pass: boolean;
  /** A MISS of this check fails the run (exit 1). */
  correctness: boolean;
}

export function summaryTable(checks: readonly Check[]): string {
  const rows = checks.map((c) => `| ${c.name} | ${c.figure} | ${c.goal} | ${c.pass ? 'PASS' : 'MISS'} |`);
  return ['| check | figure | goal | result |', '|---|---:|---|---|', ...rows].join('\n');
}

/** 1 when any correctness check missed, else 0. */
export function exitCodeFor(checks: readonly Check[]): number {
  return checks.some((c) => c.correctness && !c.pass) ? 1 : 0;
}

/**
 * A counter key's verdict: every acknowledged increment must be in the final count; increments
 * whose request failed may or may not have landed, so the count may exceed the acknowledged ones
 * by at most that many.
 */
export function counterVerdict(acknowledged: number, unknown: number, finalCount: number): { lost: number; unacknowledgedApplied: number; consistent: boolean } {
  const lost = Math.max(0, acknowledged - finalCount);
  const unacknowledgedApplied = Math.max(0, finalCount - acknowledged);
  return { lost, unacknowledgedApplied, consistent: lost === 0 && unacknowledgedApplied <= unknown };
}
