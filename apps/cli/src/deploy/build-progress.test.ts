import { describe, expect, it } from 'vitest';
import { FunctionSchema, type BuildStatus } from '@orrery/spec';
import { buildProgress } from './build-progress.ts';

const sha = 'ab'.repeat(32);
const fn = (build?: Partial<BuildStatus>) =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f', namespace: 'default' },
    spec: { template: { source: { package: { sha256: sha } } } },
    ...(build ? { status: { build: { sha256: sha, key: 'k'.repeat(64), builder: 'node npm v20', phase: 'Pending', reason: 'Queued', ...build } } } : {}),
  });

describe('buildProgress', () => {
  it('waits while the operator has not looked at this archive', () => {
    expect(buildProgress(fn(), sha)).toEqual({ phase: 'waiting', line: 'package abababababab: waiting for the operator' });
    expect(buildProgress(fn({ sha256: 'cd'.repeat(32) }), sha).phase).toBe('waiting');
  });

  it('says building, built (with its dependencies and size) and pending reasons', () => {
    expect(buildProgress(fn({ phase: 'Building', reason: 'Building' }), sha)).toEqual({ phase: 'building', line: 'package abababababab: building with node npm' });
    expect(buildProgress(fn({ phase: 'Succeeded', reason: 'Built', dependencies: 3, sizeBytes: 4096 }), sha)).toEqual({ phase: 'built', line: 'package abababababab: built (3 dependencies, 4 KiB)' });
    expect(buildProgress(fn({ phase: 'Pending', reason: 'ArchiveMissing', message: 'no archive' }), sha).line).toBe('package abababababab: ArchiveMissing: no archive');
  });

  it('fails with the reason, the message and the log tail', () => {
    expect(buildProgress(fn({ phase: 'Failed', reason: 'DependenciesFailed', message: 'npm exited with code 1', log: 'npm ERR! 404' }), sha)).toEqual({
      phase: 'failed',
      line: 'package abababababab: build failed (DependenciesFailed): npm exited with code 1',
      log: 'npm ERR! 404',
    });
  });
});
