import { describe, expect, it } from 'vitest';
import { isBackingOff, replicaHealth, worstHealth } from './replica-health.ts';

describe('statesync replica health', () => {
  it('treats a wait equal to the sync period as normal', () => {
    expect(isBackingOff(10, '10s')).toBe(false);
    expect(isBackingOff(20, '10s')).toBe(true);
    expect(replicaHealth({ backoffSeconds: 10, lastSuccessfulCycle: '2026-01-01T00:00:00Z' }, '10s')).toBe('Healthy');
    expect(replicaHealth({ backoffSeconds: 40, lastSuccessfulCycle: '2026-01-01T00:00:00Z' }, '10s')).toBe('Progressing');
  });
  it('degrades on an error and takes the worst syncable', () => {
    expect(replicaHealth({ backoffSeconds: 10, lastError: 'ECONNREFUSED' }, '10s')).toBe('Degraded');
    expect(replicaHealth({ backoffSeconds: 10 }, '10s')).toBe('Unknown');
    expect(worstHealth(['Healthy', 'Progressing', 'Unknown'])).toBe('Progressing');
  });
});
