import { describe, expect, it } from 'vitest';
import { functionBacklog, revisionBacklog } from './queue-backlog.ts';

describe('functionBacklog', () => {
  it.each([
    [[], 0],
    [[{ pending: 0, maxInFlight: 1 }], 0],
    [[{ pending: 100, maxInFlight: 1 }], 1],
    [[{ pending: 3, maxInFlight: 10 }], 3],
    [[{ pending: 100, maxInFlight: 10 }, { pending: 2, maxInFlight: 5 }], 12],
    [[{ pending: -4, maxInFlight: 10 }], 0],
  ])('%j → %i', (depths, expected) => {
    expect(functionBacklog(depths)).toBe(expected);
  });
});

describe('revisionBacklog', () => {
  const split = [
    { revisionName: 'f-00001', percent: 90 },
    { revisionName: 'f-00002', percent: 10 },
  ];
  it('shares the backlog by traffic percent', () => {
    expect(revisionBacklog(10, 'f-00001', split, 'f-00002')).toBe(9);
    expect(revisionBacklog(10, 'f-00002', split, 'f-00002')).toBe(1);
    expect(revisionBacklog(10, 'f-00003', split, 'f-00003')).toBe(0);
  });
  it('a revision named twice gets both shares; a tag-only target (0 %) gets none', () => {
    expect(revisionBacklog(4, 'f-00001', [{ revisionName: 'f-00001', percent: 50 }, { revisionName: 'f-00001', percent: 50 }], undefined)).toBe(4);
    expect(revisionBacklog(4, 'f-00002', [{ revisionName: 'f-00001', percent: 100 }, { revisionName: 'f-00002', percent: 0 }], 'f-00002')).toBe(0);
  });
  it('before traffic resolves, the latest created revision takes it all', () => {
    expect(revisionBacklog(5, 'f-00001', undefined, 'f-00001')).toBe(5);
    expect(revisionBacklog(5, 'f-00001', [], 'f-00001')).toBe(5);
    expect(revisionBacklog(5, 'f-00001', [], 'f-00002')).toBe(0);
  });
  it('no backlog, no share', () => {
    expect(revisionBacklog(0, 'f-00001', split, 'f-00001')).toBe(0);
  });
});
