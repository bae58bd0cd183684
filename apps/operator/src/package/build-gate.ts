/**
 * What a package build means for readiness (docs/packages.md), the same on both backends and for
 * both executors (a pool revision is specialized only once built: pool-executor/package-source.ts).
 * Pure. A revision whose package is not built runs no workers: Ready=Unknown (Building) while the build is pending or running,
 * Ready=False (BuildFailed) when it failed; the Function's Ready says the same, so `orrery
 * describe` and `kubectl wait` show the build instead of a generic "Progressing".
 */
import type { BuildStatus, FunctionStatus } from '@orrery/spec';
import { setCondition } from '../reconcile/conditions.ts';
import type { ReadyOverride } from '../revision/revision-backend.ts';

export const BUILDING = 'Building';
export const BUILD_FAILED = 'BuildFailed';

const describe = (b: BuildStatus) => `package ${b.sha256.slice(0, 12)}: ${b.phase} (${b.reason})${b.message ? `: ${b.message}` : ''}`;

/** Why a revision with a package cannot run yet (undefined: it can). `build` absent: not looked at yet. */
export function buildGate(build: BuildStatus | undefined): ReadyOverride | undefined {
  if (!build) return { status: 'Unknown', reason: BUILDING, message: 'waiting for the package build' };
  if (build.phase === 'Succeeded') return undefined;
  if (build.phase === 'Failed') return { status: 'False', reason: BUILD_FAILED, message: describe(build) };
  return { status: 'Unknown', reason: BUILDING, message: describe(build) };
}

/** The Function's Ready while its current template's package is not built. */
export function withBuildGate(status: FunctionStatus, gate: ReadyOverride | undefined, now: Date): FunctionStatus {
  if (!gate) return status;
  return { ...status, conditions: setCondition(status.conditions, { type: 'Ready', ...gate }, now) };
}
