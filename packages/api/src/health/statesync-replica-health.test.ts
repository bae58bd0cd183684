import { describe, expect, it } from 'vitest';
import { isBackingOff, replicaHealth, syncPeriodSeconds, type ReplicaRow } from './statesync-replica-health.ts';

const CYCLE = '2026-01-01T00:00:00Z';

describe('isBackingOff', () => {
  // [backoffSeconds, period, lastError, backing off]
  const table: Array<[number, number, string | undefined, boolean]> = [
    [10, 10, undefined, false], // the normal cadence
    [0, 10, undefined, false], // the operator's row for a replica it could not read
    [11, 10, undefined, true],
    [20, 10, undefined, true], // one failed cycle doubles the wait
    [300, 10, undefined, true],
    [10, 10, 'ECONNREFUSED', false], // an error kept from an earlier cycle, cadence back to normal
    [0, 10, 'no statesync status', false],
    [20, 10, 'ECONNREFUSED', true],
    [30, 30, undefined, false],
    [31, 30, undefined, true],
  ];
  it.each(table)('wait %i s with period %i s (lastError %s) → %s', (backoffSeconds, period, lastError, expected) => {
    expect(isBackingOff({ backoffSeconds, ...(lastError ? { lastError } : {}) }, period)).toBe(expected);
  });
});

describe('syncPeriodSeconds', () => {
  it.each([
    ['30s', 30],
    ['1m', 60],
    [undefined, 10],
    ['garbage', 10],
    ['0s', 10],
  ] as Array<[string | undefined, number]>)('%s → %i s', (period, seconds) => {
    expect(syncPeriodSeconds(period)).toBe(seconds);
  });
});

describe('replicaHealth', () => {
  const table: Array<[string, ReplicaRow, string, string]> = [
    ['an error degrades it, whatever the wait', { backoffSeconds: 10, lastError: 'ECONNREFUSED', lastSuccessfulCycle: CYCLE }, 'Degraded', 'ECONNREFUSED'],
    ['an error while backing off', { backoffSeconds: 40, lastError: 'NOPERM' }, 'Degraded', 'NOPERM'],
    ['backing off without an error is recovering', { backoffSeconds: 40, lastSuccessfulCycle: CYCLE }, 'Progressing', 'backing off: next cycle in 40 s'],
    ['no successful cycle yet', { backoffSeconds: 10 }, 'Unknown', 'no successful cycle yet'],
    ['no successful cycle yet (null from JSON)', { backoffSeconds: 10, lastSuccessfulCycle: null, lastError: null }, 'Unknown', 'no successful cycle yet'],
    ['the normal cadence after a cycle', { backoffSeconds: 10, lastSuccessfulCycle: CYCLE }, 'Healthy', `last cycle ${CYCLE}`],
  ];
  it.each(table)('%s', (_, row, health, message) => {
    expect(replicaHealth(row, 10)).toEqual({ health, message });
  });
});
