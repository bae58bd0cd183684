/**
 * What a package build means for readiness on Kubernetes: the shared gate (package/build-gate.ts —
 * Building while pending or running, BuildFailed when it failed), and the shared refusal of a
 * package on the pool executor, with what this backend's pool pods lack.
 */
import type { BuildStatus } from '@orrery/spec';
import { BUILDING, BUILD_FAILED, PACKAGE_NEEDS_DEPLOY, buildGate, poolPackageRefusal } from '../../../package/build-gate.ts';
import type { ReadyOverride } from '../../../revision/revision-backend.ts';

export { BUILDING, BUILD_FAILED, PACKAGE_NEEDS_DEPLOY };

const POOL_REFUSAL = poolPackageRefusal(" on Kubernetes: pool pods are shared by the whole Environment and do not mount the namespace's package volume");

/** Why a revision with a package cannot run yet (undefined: it can). `build` absent: not looked at yet. */
export function revisionBuildGate(executor: string, build: BuildStatus | undefined): ReadyOverride | undefined {
  return executor === 'pool' ? POOL_REFUSAL : buildGate(build);
}
