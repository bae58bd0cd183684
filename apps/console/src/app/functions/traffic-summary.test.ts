import { describe, expect, it } from 'vitest';
import { trafficSummary } from './traffic-summary.ts';

describe('trafficSummary', () => {
  it('prefers the split the operator resolved', () => {
    expect(trafficSummary([{ latestRevision: true, percent: 100 }], [{ revisionName: 'f-00002', percent: 100, latestRevision: true }])).toBe('f-00002 100 % (latest)');
    expect(trafficSummary([], [{ revisionName: 'f-00001', percent: 90, tag: 'stable' }, { revisionName: 'f-00002', percent: 10 }])).toBe('f-00001 90 % #stable · f-00002 10 %');
  });
  it('falls back to the split as written, then to the default', () => {
    expect(trafficSummary([{ revisionName: 'f-00001', percent: 50 }, { latestRevision: true, percent: 50, tag: 'canary' }], undefined)).toBe('f-00001 50 % · latest 50 % #canary');
    expect(trafficSummary([], [])).toBe('100 % to the latest ready revision (default)');
  });
});
