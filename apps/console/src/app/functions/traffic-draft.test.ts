import { describe, expect, it } from 'vitest';
import { diffRows, LATEST_KEY, rowKeyOfIssue, rowsFromSpec, sumOf, trafficFromRows } from './traffic-draft.ts';

const revs = ['f-00001', 'f-00002'];

describe('rowsFromSpec', () => {
  it('an empty split is 100 % latest, every revision at 0 %', () => {
    expect(rowsFromSpec([], revs)).toEqual([
      { key: LATEST_KEY, percent: 100, tag: '' },
      { key: 'f-00001', percent: 0, tag: '' },
      { key: 'f-00002', percent: 0, tag: '' },
    ]);
  });
  it('maps named and latest targets with their tags', () => {
    const rows = rowsFromSpec([{ revisionName: 'f-00001', percent: 90, tag: 'stable' }, { latestRevision: true, percent: 10, tag: 'canary' }], revs);
    expect(rows).toEqual([
      { key: LATEST_KEY, percent: 10, tag: 'canary' },
      { key: 'f-00001', percent: 90, tag: 'stable' },
      { key: 'f-00002', percent: 0, tag: '' },
    ]);
  });
  it('merges a revision named twice and keeps a target whose revision is not listed', () => {
    const rows = rowsFromSpec([{ revisionName: 'f-00001', percent: 30, tag: 'a' }, { revisionName: 'f-00001', percent: 20, tag: 'b' }, { revisionName: 'f-00009', percent: 50 }], revs);
    expect(rows.find((r) => r.key === 'f-00001')).toEqual({ key: 'f-00001', percent: 50, tag: 'a' });
    expect(rows.find((r) => r.key === 'f-00009')).toEqual({ key: 'f-00009', percent: 50, tag: '' });
    expect(rows.find((r) => r.key === LATEST_KEY)!.percent).toBe(0);
  });
});

describe('sumOf / trafficFromRows', () => {
  it('sums percents, ignoring non-numbers', () => {
    expect(sumOf([{ key: 'a', percent: 40, tag: '' }, { key: 'b', percent: Number.NaN, tag: '' }, { key: 'c', percent: 60, tag: '' }])).toBe(100);
  });
  it('sends rows with a percent or a tag, latest as latestRevision, tags trimmed', () => {
    expect(
      trafficFromRows([
        { key: LATEST_KEY, percent: 50, tag: '' },
        { key: 'f-00001', percent: 0, tag: ' stable ' },
        { key: 'f-00002', percent: 50, tag: '' },
        { key: 'f-00003', percent: 0, tag: '  ' },
      ]),
    ).toEqual([{ latestRevision: true, percent: 50 }, { revisionName: 'f-00001', percent: 0, tag: 'stable' }, { revisionName: 'f-00002', percent: 50 }]);
  });
});

describe('diffRows', () => {
  it('lists old → new for rows with traffic or a tag on either side, marking changes', () => {
    const before = rowsFromSpec([], revs);
    const after = rowsFromSpec([{ revisionName: 'f-00001', percent: 50 }, { latestRevision: true, percent: 50 }], revs);
    expect(diffRows(before, after)).toEqual([
      { key: LATEST_KEY, before: { percent: 100, tag: '' }, after: { percent: 50, tag: '' }, changed: true },
      { key: 'f-00001', before: { percent: 0, tag: '' }, after: { percent: 50, tag: '' }, changed: true },
    ]);
  });
  it('a tag-only change counts; identical rows are unchanged', () => {
    const before = rowsFromSpec([{ revisionName: 'f-00001', percent: 100 }], revs);
    const after = rowsFromSpec([{ revisionName: 'f-00001', percent: 100, tag: 'x' }], revs);
    expect(diffRows(before, after)).toEqual([{ key: 'f-00001', before: { percent: 100, tag: '' }, after: { percent: 100, tag: 'x' }, changed: true }]);
    expect(diffRows(before, before).every((c) => !c.changed)).toBe(true);
  });
});

describe('rowKeyOfIssue', () => {
  const sent = [{ latestRevision: true, percent: 50 }, { revisionName: 'f-00001', percent: 50, tag: 'Bad' }];
  it('points an API issue path at the row that was sent there', () => {
    expect(rowKeyOfIssue('traffic[1].tag', sent)).toBe('f-00001');
    expect(rowKeyOfIssue('traffic[0].percent', sent)).toBe(LATEST_KEY);
  });
  it('leaves whole-split and unknown paths to the general error', () => {
    expect(rowKeyOfIssue('traffic', sent)).toBeUndefined();
    expect(rowKeyOfIssue('traffic[7].tag', sent)).toBeUndefined();
    expect(rowKeyOfIssue('name', sent)).toBeUndefined();
  });
});
