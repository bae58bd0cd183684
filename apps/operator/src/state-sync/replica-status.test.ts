import { describe, expect, it } from 'vitest';
import { buildSyncStatus, replicaRows, type ReplicaReport } from './replica-status.ts';

const now = new Date('2026-01-01T00:00:00Z');
const ok = (replica: string): ReplicaReport => ({
  replica,
  status: {
    syncables: [
      { syncable: 'endpoint-quarantine', lastSuccessfulCycle: '2026-01-01T00:00:00Z', entitiesPulled: 2, entitiesPushed: 1, backoffSeconds: 1 },
      { syncable: 'sticky-owners', lastSuccessfulCycle: '2026-01-01T00:00:00Z', entitiesPulled: 0, entitiesPushed: 3, backoffSeconds: 1 },
    ],
  },
});

describe('StateSync status', () => {
  it('lists one row per replica and syncable', () => {
    const rows = replicaRows([ok('router-1'), { replica: 'router-2', error: 'unreachable: ECONNREFUSED' }]);
    expect(rows).toHaveLength(3);
    expect(rows[1]).toMatchObject({ replica: 'router-1', syncable: 'sticky-owners', entitiesPushed: 3 });
    expect(rows[2]).toMatchObject({ replica: 'router-2', lastError: 'unreachable: ECONNREFUSED' });
  });
  it('is Ready when every replica completed a cycle without errors', () => {
    const s = buildSyncStatus({ prev: undefined, generation: 2, notes: [], reports: [ok('a'), ok('b')], now });
    expect(s.observedGeneration).toBe(2);
    expect(s.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'True', reason: 'Synced' });
    expect(s.conditions?.find((c) => c.type === 'Degraded')?.status).toBe('False');
    expect(s.conditions?.map((c) => c.type)).toEqual(['Progressing', 'Ready', 'Degraded']);
  });
  it('is Degraded with the errors when a replica fails', () => {
    const bad = ok('b');
    bad.status!.syncables[0]!.lastError = 'ECONNRESET';
    const s = buildSyncStatus({ prev: undefined, generation: 1, notes: [], reports: [ok('a'), bad], now });
    expect(s.conditions?.find((c) => c.type === 'Ready')?.status).toBe('False');
    expect(s.conditions?.find((c) => c.type === 'Degraded')).toMatchObject({ status: 'True', message: 'b/endpoint-quarantine: ECONNRESET' });
  });
  it('reports render errors and rollouts', () => {
    const s = buildSyncStatus({ prev: undefined, generation: 1, renderError: { reason: 'RedisUrlMissing', message: 'set redis.url' }, notes: [], reports: [], now });
    expect(s.conditions?.find((c) => c.type === 'Ready')).toMatchObject({ status: 'False', reason: 'RedisUrlMissing' });
    expect(s.conditions?.find((c) => c.type === 'Stalled')).toMatchObject({ status: 'True', reason: 'RedisUrlMissing', message: 'set redis.url' });
    const r = buildSyncStatus({ prev: undefined, generation: 1, rollingOut: 'restarting 2', notes: [], reports: [], now });
    expect(r.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'True', reason: 'RollingOut' });
    expect(r.conditions?.find((c) => c.type === 'Ready')?.reason).toBe('NoReplicas');
    expect(r.conditions?.find((c) => c.type === 'Reconciling')).toMatchObject({ status: 'True', reason: 'RollingOut', message: 'restarting 2' });
    expect(r.conditions?.find((c) => c.type === 'Stalled')).toBeUndefined();
  });
});
