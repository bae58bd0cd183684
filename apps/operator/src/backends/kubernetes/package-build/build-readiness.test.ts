import type { BuildStatus, FunctionStatus } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { withBuildGate } from '../../../package/build-gate.ts';
import { revisionBuildGate } from './build-readiness.ts';

const build = (phase: BuildStatus['phase'], reason: BuildStatus['reason'], message?: string): BuildStatus => ({ sha256: 'abcdef0123456789'.repeat(4), key: 'k'.repeat(64), builder: 'node', phase, reason, message });
const now = new Date('2026-01-01T00:00:00Z');

describe('revisionBuildGate', () => {
  it('lets a revision with a built package run', () => {
    expect(revisionBuildGate('deploy', build('Succeeded', 'Built'))).toBeUndefined();
  });

  it('holds it Unknown/Building while the build is pending or running, or not looked at yet', () => {
    expect(revisionBuildGate('deploy', undefined)).toEqual({ status: 'Unknown', reason: 'Building', message: 'waiting for the package build' });
    expect(revisionBuildGate('deploy', build('Building', 'Building', 'installing dependencies'))).toEqual({ status: 'Unknown', reason: 'Building', message: 'package abcdef012345: Building (Building): installing dependencies' });
    expect(revisionBuildGate('deploy', build('Pending', 'ArchiveMissing'))?.status).toBe('Unknown');
  });

  it('fails it with BuildFailed and the build reason when the build failed', () => {
    expect(revisionBuildGate('deploy', build('Failed', 'DependenciesFailed', 'npm install exited 1'))).toEqual({
      status: 'False',
      reason: 'BuildFailed',
      message: 'package abcdef012345: Failed (DependenciesFailed): npm install exited 1',
    });
  });

  it('refuses a package on the pool executor, whatever the build', () => {
    expect(revisionBuildGate('pool', build('Succeeded', 'Built'))).toEqual({
      status: 'False',
      reason: 'PackageNeedsDeployExecutor',
      message: "a package (source.package) needs executor deploy on Kubernetes: pool pods are shared by the whole Environment and do not mount the namespace's package volume",
    });
  });
});

describe('withBuildGate on a Function the Kubernetes reconciler reported', () => {
  const status: FunctionStatus = { conditions: [{ type: 'Ready', status: 'Unknown', reason: 'Progressing', message: 'see ConfigurationsReady and RoutesReady', lastTransitionTime: '2025-12-31T00:00:00Z' }] };

  it('replaces the Function\'s Ready with the build\'s word', () => {
    const out = withBuildGate(status, { status: 'False', reason: 'BuildFailed', message: 'package x: Failed' }, now);
    expect(out.conditions).toEqual([{ type: 'Ready', status: 'False', reason: 'BuildFailed', message: 'package x: Failed', lastTransitionTime: now.toISOString() }]);
  });

  it('leaves the status alone without a gate', () => {
    expect(withBuildGate(status, undefined, now)).toBe(status);
  });
});
