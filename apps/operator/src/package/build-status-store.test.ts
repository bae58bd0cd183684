import { describe, expect, it } from 'vitest';
import { FunctionSchema, type BuildStatus, type OrreryFunction } from '@orrery/spec';
import { type BuildStatusStore, type BuildStatusWrite, updateBuildStatus } from './build-status-store.ts';

const build: BuildStatus = { sha256: 'a'.repeat(64), key: 'k', builder: 'node', phase: 'Building', reason: 'Building' };

function fakeStore(outcomes: BuildStatusWrite[], present = true) {
  const writes: Array<{ rv: string | undefined; build: BuildStatus | undefined }> = [];
  let rv = 1;
  const store: BuildStatusStore = {
    read: async () =>
      present
        ? FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'f', namespace: 'd', resourceVersion: String(rv++) }, spec: { template: { source: { inline: 'x' } } } })
        : undefined,
    write: async (fn: OrreryFunction, b) => {
      writes.push({ rv: fn.metadata.resourceVersion, build: b });
      return outcomes.shift() ?? 'written';
    },
  };
  return { store, writes };
}

describe('updateBuildStatus', () => {
  it('writes conditionally, reading again after a conflict', async () => {
    const { store, writes } = fakeStore(['conflict', 'written']);
    expect(await updateBuildStatus(store, 'd', 'f', () => build)).toBe('written');
    expect(writes.map((w) => w.rv)).toEqual(['1', '2']);
  });

  it('gives up after its attempts, and says unchanged or gone', async () => {
    const { store } = fakeStore(['conflict', 'conflict']);
    expect(await updateBuildStatus(store, 'd', 'f', () => build, 2)).toBe('conflict');
    expect(await updateBuildStatus(fakeStore([]).store, 'd', 'f', () => 'unchanged')).toBe('unchanged');
    expect(await updateBuildStatus(fakeStore([], false).store, 'd', 'f', () => build)).toBe('gone');
  });
});
