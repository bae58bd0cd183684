import { describe, expect, it } from 'vitest';
import { archiveMissingBuild, buildingBuild, finishedBuild, queuedBuild, sameBuild } from './build-status.ts';

const id = { sha256: 'a'.repeat(64), key: 'b'.repeat(64), builder: 'node npm v20' };
const t0 = new Date('2026-01-01T00:00:00Z');
const t1 = new Date('2026-01-01T00:00:03Z');

describe('build status', () => {
  it('pending: queued or waiting for the archive', () => {
    expect(queuedBuild(id)).toEqual({ ...id, phase: 'Pending', reason: 'Queued', message: 'waiting for a builder' });
    expect(archiveMissingBuild(id, 'upload it')).toEqual({ ...id, phase: 'Pending', reason: 'ArchiveMissing', message: 'upload it' });
  });

  it('building, with when it started', () => {
    expect(buildingBuild(id, t0)).toMatchObject({ phase: 'Building', reason: 'Building', startedAt: '2026-01-01T00:00:00.000Z' });
  });

  it('succeeded: dependencies, size, times and the log', () => {
    expect(finishedBuild(id, { ok: true, dependencies: 2, sizeBytes: 10, main: 'h.mjs' }, 'added 2 packages', t0, t1)).toEqual({
      ...id,
      phase: 'Succeeded',
      reason: 'Built',
      message: 'built with 2 dependencies; loads h.mjs',
      startedAt: '2026-01-01T00:00:00.000Z',
      finishedAt: '2026-01-01T00:00:03.000Z',
      dependencies: 2,
      sizeBytes: 10,
      log: 'added 2 packages',
    });
  });

  it('failed: the reason and message, no log field when there was no output', () => {
    const failed = finishedBuild(id, { ok: false, reason: 'MainMissing', message: 'no index.js' }, '', t0, t1);
    expect(failed).toMatchObject({ phase: 'Failed', reason: 'MainMissing', message: 'no index.js' });
    expect(failed).not.toHaveProperty('log');
  });

  it('sameBuild compares by content', () => {
    expect(sameBuild(queuedBuild(id), queuedBuild(id))).toBe(true);
    expect(sameBuild(queuedBuild(id), buildingBuild(id, t0))).toBe(false);
    expect(sameBuild(undefined, undefined)).toBe(true);
    expect(sameBuild(undefined, queuedBuild(id))).toBe(false);
  });
});
