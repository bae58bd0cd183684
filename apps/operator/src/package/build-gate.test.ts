import { describe, expect, it } from 'vitest';
import type { BuildStatus, FunctionStatus } from '@orrery/spec';
import { buildGate, withBuildGate } from './build-gate.ts';

const build = (b: Partial<BuildStatus>): BuildStatus => ({ sha256: 'ab'.repeat(32), key: 'k', builder: 'node', phase: 'Pending', reason: 'Queued', ...b });
const now = new Date('2026-01-01T00:00:00Z');

describe('buildGate', () => {
  it('lets a built package run', () => {
    expect(buildGate(build({ phase: 'Succeeded', reason: 'Built' }))).toBeUndefined();
  });

  it('holds workers while nobody looked, while pending and while building (Unknown, Building)', () => {
    expect(buildGate(undefined)).toEqual({ status: 'Unknown', reason: 'Building', message: 'waiting for the package build' });
    expect(buildGate(build({ reason: 'ArchiveMissing', message: 'upload it' }))).toEqual({ status: 'Unknown', reason: 'Building', message: 'package abababababab: Pending (ArchiveMissing): upload it' });
    expect(buildGate(build({ phase: 'Building', reason: 'Building' }))?.status).toBe('Unknown');
  });

  it('fails a failed build (False, BuildFailed) with its reason', () => {
    expect(buildGate(build({ phase: 'Failed', reason: 'DependenciesFailed', message: 'npm exited with code 1' }))).toEqual({
      status: 'False',
      reason: 'BuildFailed',
      message: 'package abababababab: Failed (DependenciesFailed): npm exited with code 1',
    });
  });
});

describe('withBuildGate', () => {
  const status: FunctionStatus = { conditions: [{ type: 'Ready', status: 'True', reason: 'RevisionsReady', lastTransitionTime: '2025-01-01T00:00:00Z' }] };

  it('leaves the status alone without a gate', () => {
    expect(withBuildGate(status, undefined, now)).toBe(status);
  });

  it('replaces Ready with the gate', () => {
    const gated = withBuildGate(status, { status: 'False', reason: 'BuildFailed', message: 'm' }, now);
    expect(gated.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'BuildFailed', message: 'm', lastTransitionTime: '2026-01-01T00:00:00.000Z' });
  });
});
