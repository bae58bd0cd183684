import { describe, expect, it } from 'vitest';
import { learnerCatchUp } from './catch-up.ts';

describe('learnerCatchUp', () => {
  it('allows promotion at 90 % of the leader index', () => {
    expect(learnerCatchUp(90, 100)).toEqual({ caughtUp: true, percent: 90 });
    expect(learnerCatchUp(0, 0)).toEqual({ caughtUp: true, percent: 100 });
  });
  it('says why it must wait below the threshold or without data', () => {
    const lagging = learnerCatchUp(40, 100);
    expect(lagging.caughtUp).toBe(false);
    expect(lagging.reason).toMatch(/applied 40 of the leader's 100 \(40 %/);
    expect(learnerCatchUp(undefined, 100).caughtUp).toBe(false);
    expect(learnerCatchUp(50, undefined).reason).toMatch(/no leader/);
  });
});
