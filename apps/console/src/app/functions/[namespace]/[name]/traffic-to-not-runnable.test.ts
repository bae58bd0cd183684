import { describe, expect, it } from 'vitest';
import { LATEST_KEY } from '../../traffic-draft.ts';
import { trafficToNotRunnable } from './traffic-to-not-runnable.ts';

const notRunnable = { 'f-00002': { reason: 'build_failed' as const, message: 'its package build failed (MainMissing)' } };

describe('trafficToNotRunnable', () => {
  it('names each share that goes to a revision that can never serve', () => {
    const rows = [
      { key: LATEST_KEY, percent: 0, tag: '' },
      { key: 'f-00001', percent: 70, tag: '' },
      { key: 'f-00002', percent: 30, tag: 'canary' },
    ];
    expect(trafficToNotRunnable(rows, notRunnable)).toEqual([{ key: 'f-00002', percent: 30, message: 'its package build failed (MainMissing)' }]);
  });

  it('is empty when the failed revision gets 0 % (a tag alone sends it nothing by default) or nothing failed', () => {
    expect(trafficToNotRunnable([{ key: 'f-00001', percent: 100, tag: '' }, { key: 'f-00002', percent: 0, tag: 'old' }], notRunnable)).toEqual([]);
    expect(trafficToNotRunnable([{ key: 'f-00002', percent: 100, tag: '' }], {})).toEqual([]);
  });

  it('does not take an inherited property for a verdict', () => {
    expect(trafficToNotRunnable([{ key: 'constructor', percent: 100, tag: '' }], notRunnable)).toEqual([]);
  });
});
