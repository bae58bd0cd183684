/**
 * What a package build means for readiness on Kubernetes: the shared gate (package/build-gate.ts —
 * Building while pending or running, BuildFailed when it failed), plus the one refusal only this
 * backend has: a package on the pool executor.
 */
import type { BuildStatus, FunctionStatus } from '@orrery/spec';
import { BUILDING, BUILD_FAILED, buildGate, withBuildGate } from '../../../package/build-gate.ts';
import type { ReadyOverride } from '../../../revision/revision-backend.ts';

export { BUILDING, BUILD_FAILED };
/** Pool pods are shared by every Function of an Environment and mount no package volume. */
export const PACKAGE_NEEDS_DEPLOY = 'PackageNeedsDeployExecutor';

/** Why a revision with a package cannot run yet (undefined: it can). `build` absent: not looked at yet. */
export function revisionBuildGate(executor: string, build: BuildStatus | undefined): ReadyOverride | undefined {
  if (executor === 'pool') {
    return {
      status: 'False',
      reason: PACKAGE_NEEDS_DEPLOY,
      message: 'a package (source.package) needs executor deploy on Kubernetes: pool pods are shared by the whole Environment and do not mount the namespace\'s package volume',
    };
  }
  return buildGate(build);
}

/** The Function's Ready while the package of its newest revision is not built (Building / BuildFailed with the build's reason). */
export function withBuildReadiness(status: FunctionStatus, gate: ReadyOverride | undefined, now: Date): FunctionStatus {
  return withBuildGate(status, gate, now);
}
