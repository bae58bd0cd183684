import { describe, expect, it } from 'vitest';
import { rollbackChoice } from './rollback-choice.ts';

const failed = { reason: 'build_failed' as const, message: 'its package build failed (package aaaaaaaaaaaa: DependenciesFailed: npm exited with code 1)' };

describe('rollbackChoice', () => {
  it('offers a rollback to a revision with part or none of the traffic', () => {
    expect(rollbackChoice('f-00001', [], false, undefined)).toEqual({ enabled: true, title: 'send 100 % of traffic to f-00001' });
    expect(rollbackChoice('f-00001', [{ percent: 40 }], false, undefined).enabled).toBe(true);
  });

  it('disables it for the revision pinned at 100 %, not when the spec follows the latest revision or splits it by tag', () => {
    expect(rollbackChoice('f-00002', [{ percent: 100 }], false, undefined)).toEqual({ enabled: false, title: 'already receives all traffic' });
    expect(rollbackChoice('f-00002', [{ percent: 100 }], true, undefined).enabled).toBe(true);
    expect(rollbackChoice('f-00002', [{ percent: 50 }, { percent: 50 }], false, undefined).enabled).toBe(true);
  });

  it('disables it for a revision whose build failed, saying why, whatever its traffic', () => {
    const want = { enabled: false, title: `cannot roll back to f-00003: ${failed.message}, so it can never serve traffic` };
    expect(rollbackChoice('f-00003', [], false, failed)).toEqual(want);
    expect(rollbackChoice('f-00003', [{ percent: 100 }], false, failed)).toEqual(want);
    expect(rollbackChoice('f-00003', [{ percent: 30 }], true, failed)).toEqual(want);
  });
});
