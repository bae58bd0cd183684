import { describe, expect, it } from 'vitest';
import { statusChanged } from './status-changed.ts';

const cond = (status: string, time: string) => ({ type: 'Ready', status, reason: 'R', message: 'm', lastTransitionTime: time });

describe('statusChanged', () => {
  it('ignores condition transition times', () => {
    expect(statusChanged({ conditions: [cond('True', '2026-01-01T00:00:00Z')] }, { conditions: [cond('True', '2026-02-02T00:00:00Z')] })).toBe(false);
  });
  it('compares as stored JSON: undefined members are absent members', () => {
    expect(statusChanged({ readyWorkers: 1, lastDecision: undefined }, { readyWorkers: 1 })).toBe(false);
    expect(statusChanged(undefined, null)).toBe(false);
  });
  it('sees every real change', () => {
    expect(statusChanged({ readyWorkers: 2 }, { readyWorkers: 1 })).toBe(true);
    expect(statusChanged({ conditions: [cond('False', 't')] }, { conditions: [cond('True', 't')] })).toBe(true);
    expect(statusChanged({ readyWorkers: 0 }, undefined)).toBe(true);
  });
});
