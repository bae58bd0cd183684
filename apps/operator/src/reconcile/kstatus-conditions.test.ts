import { describe, expect, it } from 'vitest';
import type { Condition } from '@orrery/spec';
import { progressOfReady, RECONCILING, STALLED, withProgress, withReadyProgress } from './kstatus-conditions.ts';

const t0 = new Date('2026-12-01T00:00:00Z');
const t1 = new Date('2026-12-01T00:05:00Z');
const ready = (status: Condition['status'], reason = 'R', message = 'm'): Condition => ({ type: 'Ready', status, reason, message, lastTransitionTime: t0.toISOString() });
const types = (c: Condition[]) => c.map((x) => `${x.type}=${x.status}`);

describe('withProgress', () => {
  it('adds Reconciling=True and keeps the other conditions', () => {
    const c = withProgress([ready('Unknown')], { state: 'reconciling', reason: 'Deploying', message: 'starting 0/1' }, t0);
    expect(types(c)).toEqual(['Ready=Unknown', 'Reconciling=True']);
    expect(c[1]).toMatchObject({ reason: 'Deploying', message: 'starting 0/1', lastTransitionTime: t0.toISOString() });
  });
  it('replaces Reconciling by Stalled, and Stalled by Reconciling: never both', () => {
    const reconciling = withProgress([], { state: 'reconciling', reason: 'a', message: '' }, t0);
    const stalled = withProgress(reconciling, { state: 'stalled', reason: 'WorkerCrashing', message: 'exit 1' }, t1);
    expect(types(stalled)).toEqual(['Stalled=True']);
    expect(types(withProgress(stalled, { state: 'reconciling', reason: 'b', message: '' }, t1))).toEqual(['Reconciling=True']);
  });
  it('removes both once done (abnormal-true: a settled object carries neither)', () => {
    const c = withProgress([ready('True'), { type: STALLED, status: 'True' }, { type: RECONCILING, status: 'True' }], { state: 'done' }, t1);
    expect(types(c)).toEqual(['Ready=True']);
    expect(withProgress(undefined, { state: 'done' }, t1)).toEqual([]);
  });
  it('keeps lastTransitionTime while the same condition stays true', () => {
    const first = withProgress([], { state: 'stalled', reason: 'x', message: 'one' }, t0);
    const again = withProgress(first, { state: 'stalled', reason: 'x', message: 'two' }, t1);
    expect(again[0]).toMatchObject({ message: 'two', lastTransitionTime: t0.toISOString() });
  });
  it('does not change its input', () => {
    const input = [ready('True'), { type: STALLED, status: 'True' as const }];
    withProgress(input, { state: 'done' }, t1);
    expect(input).toHaveLength(2);
  });
});

describe('progressOfReady', () => {
  it('Ready=True → done, Ready=False → stalled with its reason, Unknown or absent → reconciling', () => {
    expect(progressOfReady([ready('True')])).toEqual({ state: 'done' });
    expect(progressOfReady([ready('False', 'WorkerCrashing', 'exit 1')])).toEqual({ state: 'stalled', reason: 'WorkerCrashing', message: 'exit 1' });
    expect(progressOfReady([ready('Unknown', 'Deploying', '0/1')])).toEqual({ state: 'reconciling', reason: 'Deploying', message: '0/1' });
    expect(progressOfReady(undefined)).toEqual({ state: 'reconciling', reason: 'Pending', message: 'waiting for the first status' });
  });
  it('withReadyProgress follows a Ready that flipped back to True', () => {
    const failed = withReadyProgress([ready('False')], t0);
    expect(types(failed)).toEqual(['Ready=False', 'Stalled=True']);
    const fixed = withReadyProgress(failed.map((c) => (c.type === 'Ready' ? ready('True') : c)), t1);
    expect(types(fixed)).toEqual(['Ready=True']);
  });
});
