/**
 * Named fail points for crash tests (`--test-fail-point NAME`). Each stops the process at one
 * exact place, as a crash would, so a test can check what survives. Never for production: the
 * flag is refused unless the environment also says `ORRERY_TEST_FAIL_POINTS=1`, and the Helm
 * chart sets neither (a chart test checks it).
 *
 * - `exit-after-commit`: SIGKILL to itself right after a write committed (the driver's call
 *   returned: Postgres committed, the memory journal line was written) and before the answer is
 *   sent. The client sees its connection drop; an idempotent retry must find the outcome stored.
 */
export const TEST_FAIL_POINTS = ['exit-after-commit'] as const;
export type TestFailPoint = (typeof TEST_FAIL_POINTS)[number];
export const TEST_FAIL_POINTS_ENV = 'ORRERY_TEST_FAIL_POINTS';

export type FailPointSetting = { ok: true; point: TestFailPoint | undefined } | { ok: false; message: string };

export function resolveTestFailPoint(flag: string | undefined, env: NodeJS.ProcessEnv): FailPointSetting {
  if (flag === undefined) return { ok: true, point: undefined };
  if (!(TEST_FAIL_POINTS as readonly string[]).includes(flag)) {
    return { ok: false, message: `--test-fail-point must be one of ${TEST_FAIL_POINTS.join(', ')}` };
  }
  if (env[TEST_FAIL_POINTS_ENV] !== '1') {
    return { ok: false, message: `--test-fail-point kills statesvc on purpose and is for tests only: it is refused unless ${TEST_FAIL_POINTS_ENV}=1 is also set` };
  }
  return { ok: true, point: flag as TestFailPoint };
}

/** What the server calls after a commit for the fail point (undefined: nothing). */
export function afterCommitHook(point: TestFailPoint | undefined, kill: () => void = () => process.kill(process.pid, 'SIGKILL')): (() => void) | undefined {
  return point === 'exit-after-commit' ? kill : undefined;
}
