/**
 * StateSync on the local backend: two real orrery-router processes, real Redis; the reconciler
 * rolls the rendered settings out to them and publishes their statesync status.
 */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type Connection } from '@orrery/db';
import { waitFor } from '@orrery/etcdcluster';
import type { StateSync } from '@orrery/spec';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import { LocalRouterFleet } from './local-router-fleet.ts';
import { StateSyncReconciler } from '../../state-sync/state-sync-reconciler.ts';
import { LocalStateSyncBackend } from './local-state-sync-backend.ts';

const REDIS = 'redis://127.0.0.1:6379';
const prefix = `orrery-ss-test-${Math.random().toString(36).slice(2, 8)}`;
let conn: Connection;
let store: ResourceStore;
let dataDir: string;
let fleet: LocalRouterFleet;
let reconciler: StateSyncReconciler;

const current = async () => (await store.get('StateSync', 'default', 'routers')) as StateSync;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'orrery-ss-'));
  const routes = join(dataDir, 'routes.yaml');
  writeFileSync(routes, '');
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  fleet = new LocalRouterFleet({ count: 2, baseArgs: ['--routes-file', routes] });
  reconciler = new StateSyncReconciler({ store, backend: new LocalStateSyncBackend({ dataDir, replicas: fleet }), intervalMs: 1000, stopTimeoutMs: 60_000 });
  await reconciler.start();
}, 90_000);

afterAll(async () => {
  await reconciler?.stop();
  await fleet?.stop();
  await store?.close();
  await conn?.close();
  rmSync(dataDir, { recursive: true, force: true });
  const redis = new Redis(REDIS);
  for (const p of [prefix, `${prefix}-b`]) {
    const keys = await redis.keys(`${p}:*`);
    if (keys.length) await redis.del(...keys);
  }
  redis.disconnect();
}, 60_000);

describe('StateSync (local backend, real routers and Redis)', () => {
  it('rolls the settings out to two routers and publishes their sync status', { timeout: 90_000 }, async () => {
    // One sticky owner already in Redis (as another replica would have written it): both pull it.
    const redis = new Redis(REDIS);
    await redis.setex(`${prefix}:{router-sticky-owners}:e:default/counter#7`, 300, JSON.stringify({ address: '127.0.0.1:9', at: Date.now() }));
    redis.disconnect();
    await store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'StateSync',
      metadata: { namespace: 'default', name: 'routers' },
      spec: { target: { component: 'router' }, redis: { url: REDIS }, keyPrefix: prefix, syncPeriod: '1s' },
    });
    const ss = await waitFor('both replicas synced', 60_000, async () => {
      const s = await current();
      const ready = s.status?.conditions?.find((c) => c.type === 'Ready');
      const pulled = s.status?.replicas?.filter((r) => r.syncable === 'sticky-owners' && r.entitiesPulled >= 1).length;
      return ready?.status === 'True' && s.status?.observedGeneration === s.metadata.generation && pulled === 2 ? s : undefined;
    }, undefined, 300);
    const rows = ss.status!.replicas!;
    expect(new Set(rows.map((r) => r.replica))).toEqual(new Set(['router-1', 'router-2']));
    expect(new Set(rows.map((r) => r.syncable))).toEqual(new Set(['endpoint-quarantine', 'sticky-owners']));
    for (const r of rows) {
      expect(Date.now() - Date.parse(r.lastSuccessfulCycle!)).toBeLessThan(60_000);
      expect(r.lastError).toBeUndefined();
      expect(r.backoffSeconds).toBeGreaterThan(0);
    }
    // The rendered settings file: the Redis URL may hold a password, so 0600.
    const file = join(dataDir, 'statesync', 'default', 'routers.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ keyPrefix: prefix, syncPeriodMs: 1000 });
    // Each replica really runs against Redis with our prefix.
    const stats = (await (await fetch(`${fleet.replicas()[0]!.adminUrl!}/v1/stats`)).json()) as { statesync?: { syncPeriodMs: number } };
    expect(stats.statesync?.syncPeriodMs).toBe(1000);
  });

  it('restarts the routers when the settings change', { timeout: 90_000 }, async () => {
    const pidsBefore = fleet.pids();
    const s = await current();
    await store.apply({ apiVersion: s.apiVersion, kind: s.kind, metadata: { namespace: 'default', name: 'routers' }, spec: { ...s.spec, keyPrefix: `${prefix}-b`, syncPeriod: '2s' } });
    await waitFor('the new settings rolled out and synced', 60_000, async () => {
      const cur = await current();
      const ready = cur.status?.conditions?.find((c) => c.type === 'Ready');
      return ready?.status === 'True' && cur.status?.observedGeneration === cur.metadata.generation ? cur : undefined;
    }, undefined, 300);
    const after = fleet.pids();
    expect(after).toHaveLength(2);
    expect(after.some((p) => pidsBefore.includes(p))).toBe(false);
    const stats = (await (await fetch(`${fleet.replicas()[1]!.adminUrl!}/v1/stats`)).json()) as { statesync?: { syncPeriodMs: number } };
    expect(stats.statesync?.syncPeriodMs).toBe(2000);
  });
});
