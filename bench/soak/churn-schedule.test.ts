import { describe, expect, it } from 'vitest';
import { churnActions, nextMinScale, scheduleCounts, stablePercentAt } from './churn-schedule.ts';

describe('churnActions', () => {
  const fns = ['counter', 'cart', 'canary'];

  it('gives every function one action per tick, staggered across functions', () => {
    expect(churnActions(0, fns)).toEqual([
      { function: 'counter', kind: 'kill' },
      { function: 'cart', kind: 'add' },
      { function: 'canary', kind: 'kill' },
    ]);
  });

  it('alternates kill and add for each function from one tick to the next', () => {
    for (let tick = 0; tick < 6; tick++) {
      const now = churnActions(tick, fns);
      const next = churnActions(tick + 1, fns);
      for (let i = 0; i < fns.length; i++) expect(next[i]!.kind).not.toBe(now[i]!.kind);
    }
  });
});

describe('nextMinScale', () => {
  it('adds one worker up to maxScale', () => {
    expect(nextMinScale(0, 0, 3)).toEqual({ minScale: 1, lowered: false });
    expect(nextMinScale(2, 0, 3)).toEqual({ minScale: 3, lowered: false });
  });

  it('drops back to the base at the top, so later adds have room', () => {
    expect(nextMinScale(3, 1, 3)).toEqual({ minScale: 1, lowered: true });
    expect(nextMinScale(4, 6, 4)).toEqual({ minScale: 4, lowered: true });
  });
});

describe('stablePercentAt', () => {
  it('cycles 90, 50, 10, 50', () => {
    expect([0, 1, 2, 3, 4, 5].map(stablePercentAt)).toEqual([90, 50, 10, 50, 90, 50]);
  });
});

describe('scheduleCounts', () => {
  it('counts only actions strictly inside the load', () => {
    expect(scheduleCounts(180, 10, 60)).toEqual({ ticks: 17, shifts: 2 });
    expect(scheduleCounts(1800, 10, 60)).toEqual({ ticks: 179, shifts: 29 });
    expect(scheduleCounts(5, 10, 60)).toEqual({ ticks: 0, shifts: 0 });
  });
});
