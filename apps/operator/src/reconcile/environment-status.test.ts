import { describe, expect, it } from 'vitest';
import { EnvironmentSchema } from '@orrery/spec';
import { environmentStatus } from './environment-status.ts';

const env = EnvironmentSchema.parse({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name: 'nodejs', namespace: 'default', generation: 3 },
  spec: { poolSize: 2 },
});

describe('environmentStatus', () => {
  it('is Ready (Accepted) before the pool exists and reports observedGeneration', () => {
    const s = environmentStatus(env, 0, new Date('2026-01-01T00:00:00Z'));
    expect(s.observedGeneration).toBe(3);
    expect(s.readyPoolWorkers).toBe(0);
    expect(s.conditions).toEqual([expect.objectContaining({ type: 'Ready', status: 'True', reason: 'Accepted' })]);
  });
  it('reports warm workers and keeps the transition time while Ready stays True', () => {
    const first = environmentStatus(env, 0, new Date('2026-01-01T00:00:00Z'));
    const later = environmentStatus({ ...env, status: first }, 2, new Date('2026-01-02T00:00:00Z'));
    expect(later.readyPoolWorkers).toBe(2);
    expect(later.conditions![0]).toMatchObject({ reason: 'PoolReady', message: '2/2 warm pool workers ready', lastTransitionTime: '2026-01-01T00:00:00.000Z' });
  });
});
