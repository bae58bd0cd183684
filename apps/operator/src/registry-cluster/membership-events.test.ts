import { describe, expect, it } from 'vitest';
import { EVENT_REASONS } from '../events/event-recorder.ts';
import { requestEvent, stepEvent } from './membership-events.ts';

describe('stepEvent', () => {
  it('names each membership change; steps that change nothing record nothing', () => {
    expect(stepEvent({ kind: 'add-learner', name: 'rc-3', ordinal: 3, message: 'scaling to 3 voters' })).toEqual({ reason: 'LearnerAdded', message: 'added rc-3 as a learner: scaling to 3 voters' });
    expect(stepEvent({ kind: 'promote', member: 'rc-3', message: 'caught up' })?.reason).toBe('LearnerPromoted');
    expect(stepEvent({ kind: 'remove', member: 'rc-2', reason: 'scale-down', message: 'scaling to 1' })).toEqual({ reason: 'MemberRemoved', message: 'removed rc-2 (scale-down): scaling to 1' });
    expect(stepEvent({ kind: 'transfer-leader', from: 'rc-1', to: 'rc-2', message: 'm' })?.reason).toBe('LeaderTransferred');
    expect(stepEvent({ kind: 'wait', reason: 'catching-up', message: 'm' })).toBeUndefined();
    expect(stepEvent({ kind: 'steady', message: '' })).toBeUndefined();
  });

  it('a failed step is a Warning with the error', () => {
    const e = stepEvent({ kind: 'promote', member: 'rc-3', message: 'm' }, 'etcdserver: can only promote a learner member which is in sync with leader')!;
    expect(e.reason).toBe('MembershipStepFailed');
    expect(EVENT_REASONS[e.reason]).toBe('Warning');
    expect(e.message).toContain('promote failed: etcdserver');
  });
});

describe('requestEvent', () => {
  it('maps a handled request to the change it made, or a Warning when refused or failed', () => {
    expect(requestEvent({ id: 'r1', action: 'replace' }, 'succeeded', 'rc-2 removed; a new learner follows')).toEqual({ reason: 'MemberRemoved', message: 'request r1: rc-2 removed; a new learner follows' });
    expect(requestEvent({ id: 'r2', action: 'promote' }, 'succeeded', 'rc-3 promoted').reason).toBe('LearnerPromoted');
    expect(requestEvent({ id: 'r3', action: 'remove' }, 'rejected', 'would break quorum')).toEqual({ reason: 'MembershipStepFailed', message: 'request r3 (remove) rejected: would break quorum' });
  });
});
