import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functionRollups } from '@orrery/db';
import { applyRouterStateSync, createHarness, fnManifest, rejection, revisionManifest, type Harness } from '../../testing/api-harness.ts';

// statesvc and router replicas are stood in by small HTTP servers serving their documented shapes
// (/healthz, /v1/admin/namespaces, /v1/stats); the e2e suite runs the real ones.
const servers: Server[] = [];
async function serve(handler: (path: string) => { status: number; body: unknown }): Promise<string> {
  const s = createServer((req, res) => {
    const a = handler(new URL(req.url!, 'http://x').pathname);
    res.writeHead(a.status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(a.body));
  });
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', ok));
  servers.push(s);
  return `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
}
/** A port nothing listens on (connection refused at once). */
const DEAD = 'http://127.0.0.1:9';

const now = new Date('2026-11-30T12:30:20Z');
let h: Harness;

beforeAll(async () => {
  const statesvc = await serve((p) =>
    p === '/healthz'
      ? { status: 200, body: { status: 'ok' } }
      : p === '/v1/admin/namespaces'
        ? {
            status: 200,
            body: {
              namespaces: [
                {
                  namespace: 'default',
                  keys: 95,
                  bytes: 100,
                  byteBudget: 1000,
                  keyspaces: [{ keyspace: 'cart', keys: 95, bytes: 100, declared: true, maxKeys: 100, maxValueBytes: 262144, defaultTTL: null }],
                },
              ],
            },
          }
        : { status: 404, body: { error: 'no route' } },
  );
  const router = await serve((p) =>
    p === '/v1/stats'
      ? { status: 200, body: { revisions: [], functions: [{ namespace: 'default', function: 'cart', requests: 40, stickyRequests: 20, stickyKeyMissing: 1, stickyHits: 15, teleports: 3 }] } }
      : { status: 404, body: {} },
  );
  h = await createHarness({ statesvc: { url: statesvc }, routerAdminUrls: () => [router, DEAD], upstreamTimeoutMs: 2000, now: () => now });

  await h.store.apply(fnManifest('cart', undefined, { state: { maxKeys: 100 } }));
  await h.store.apply(revisionManifest('cart', 1), { allowCreateOnlyKinds: true }); // as the operator does
  // Two audit rows: one refused, one done (the overview shows the newest first). The rollback
  // bumps the generation, so the status below observes the generation it leaves.
  await rejection(h.as('viewer', 'vic').functions.rollback({ name: 'cart', revision: 'cart-00001' }));
  const rolled = await h.as('operator', 'olga').functions.rollback({ name: 'cart', revision: 'cart-00001' });
  await h.store.updateStatus('Function', 'default', 'cart', {
    observedGeneration: rolled.metadata.generation,
    latestCreatedRevision: 'cart-00001',
    latestReadyRevision: 'cart-00001',
    traffic: [{ revisionName: 'cart-00001', percent: 100, latestRevision: true }],
    conditions: [
      { type: 'ConfigurationsReady', status: 'True', reason: 'RevisionReady', message: '' },
      { type: 'RoutesReady', status: 'True', reason: 'TrafficResolved', message: '' },
      { type: 'Ready', status: 'True', reason: 'Ready', message: '' },
    ],
  });
  await h.store.apply(fnManifest('broken'));
  await h.store.updateStatus('Function', 'default', 'broken', {
    observedGeneration: 1,
    conditions: [
      { type: 'ConfigurationsReady', status: 'False', reason: 'WorkerCrashing', message: 'broken-00001: workers keep exiting' },
      { type: 'Ready', status: 'False', reason: 'RevisionFailed', message: 'see ConfigurationsReady and RoutesReady' },
    ],
  });
  await h.store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'RegistryCluster', metadata: { name: 'reg', namespace: 'default' }, spec: { replicas: 3 } });
  await h.store.updateStatus('RegistryCluster', 'default', 'reg', {
    leader: 'reg-1',
    members: [
      { id: '1', name: 'reg-1', role: 'voter', isLeader: true, raftIndex: 100, raftAppliedIndex: 100, health: 'healthy' },
      { id: '4', name: 'reg-4', role: 'learner', isLeader: false, raftIndex: 100, raftAppliedIndex: 40, health: 'healthy' },
    ],
    conditions: [
      { type: 'Available', status: 'True', reason: 'QuorumHealthy', message: 'leader reg-1' },
      { type: 'Progressing', status: 'True', reason: 'AddLearner', message: 'adding learner reg-4: 40 % caught up' },
      { type: 'Degraded', status: 'False', reason: 'AllHealthy', message: '' },
    ],
  });
  await applyRouterStateSync(h, {
    replicas: [{ replica: 'router-b', entitiesPushed: 0, entitiesPulled: 0, lastError: 'ECONNREFUSED', backoffSeconds: 20 }],
    conditions: [{ type: 'Degraded', status: 'True', reason: 'SyncErrors', message: 'router-b: ECONNREFUSED' }],
  });
  await h.conn.db.insert(functionRollups).values({ minute: new Date('2026-11-30T12:30:00Z'), namespace: 'default', function: 'cart', teleports: 7 });
}, 60_000);
afterAll(async () => {
  await h.close();
  for (const s of servers) await new Promise<void>((ok) => s.close(() => ok()));
});

describe('overview.summary (viewer)', () => {
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).overview.summary())).code).toBe('UNAUTHORIZED');
  });

  it('derives each component’s health server-side', async () => {
    const r = await h.as('viewer').overview.summary();
    const health = Object.fromEntries(r.components.map((c) => [c.id, c.health]));
    expect(health).toEqual({ functions: 'Degraded', statesvc: 'Healthy', router: 'Degraded', registry: 'Progressing', statesync: 'Degraded' });
    expect(r.components.find((c) => c.id === 'router')!.message).toMatch(/^1 of 2 replicas answered; http:\/\/127\.0\.0\.1:9/);
    const fns = Object.fromEntries(r.functions.map((f) => [f.name, f]));
    expect(fns.cart).toMatchObject({ health: 'Healthy', latestReadyRevision: 'cart-00001', revisions: 1, requests: 40, teleports: 3, hitRatio: 0.75, state: { keyspace: 'cart', keys: 95, maxKeys: 100, keysPercent: 95 } });
    expect(fns.broken).toMatchObject({ health: 'Degraded', message: 'WorkerCrashing: broken-00001: workers keep exiting', requests: null, state: null });
    expect(r.registryClusters).toEqual([expect.objectContaining({ name: 'reg', health: 'Progressing', leader: 'reg-1', voters: 1, learners: 1 })]);
    expect(r.stateSyncs).toEqual([expect.objectContaining({ name: 'routers', health: 'Degraded', replicas: 1, backingOff: 1 })]);
  });

  it('counts objects and replicas', async () => {
    const r = await h.as('viewer').overview.summary();
    expect(r.counts).toEqual({ functions: 2, revisions: 1, registryClusters: 1, stateSyncs: 1, routerReplicas: 2, routerReplicasUp: 1 });
    expect(r.namespaces).toEqual([{ namespace: 'default', keys: 95, bytes: 100, byteBudget: 1000, keyspaces: 1 }]);
  });

  it('lists the newest audit rows first, without their inputs', async () => {
    const r = await h.as('viewer').overview.summary({ auditLimit: 10 });
    expect(r.recentAudit.map((a) => [a.who, a.action, a.result])).toEqual([
      ['olga', 'functions.rollback', 'ok'],
      ['vic', 'functions.rollback', 'error'],
    ]);
    expect(r.recentAudit[0]).not.toHaveProperty('input');
    expect((await h.as('viewer').overview.summary({ auditLimit: 1 })).recentAudit).toHaveLength(1);
  });

  it('raises each kind of alert from the data it read', async () => {
    const r = await h.as('viewer').overview.summary();
    expect(r.alerts.map((a) => [a.severity, a.kind])).toEqual([
      ['warning', 'keyspace-quota'],
      ['warning', 'learner-lag'],
      ['warning', 'statesync-backoff'],
      ['warning', 'teleport-spike'],
    ]);
    expect(r.alerts.find((a) => a.kind === 'teleport-spike')!.link).toBe('/functions/default/cart#sticky');
  });

  it('scopes objects to a namespace', async () => {
    const r = await h.as('viewer').overview.summary({ namespace: 'other' });
    expect(r.counts.functions).toBe(0);
    expect(r.alerts.filter((a) => a.kind !== 'keyspace-quota')).toEqual([]);
  });

  it('validates its input with a path', async () => {
    const err = await rejection(h.as('viewer').overview.summary({ auditLimit: 500 }));
    expect(err.code).toBe('BAD_REQUEST');
  });
});

describe('overview.summary with statesvc and routers absent or silent', () => {
  it('shows Unknown when they are not configured, without throwing', async () => {
    const bare = await createHarness();
    try {
      const r = await bare.as('viewer').overview.summary();
      const byId = Object.fromEntries(r.components.map((c) => [c.id, c]));
      expect(byId.statesvc).toMatchObject({ health: 'Unknown', message: 'the API was started without a statesvc URL' });
      expect(byId.router).toMatchObject({ health: 'Unknown', message: 'no router replicas known to the API' });
      expect(byId.functions).toMatchObject({ health: 'Healthy', message: 'no functions' });
      expect(r.alerts).toEqual([]);
      expect(r.namespaces).toEqual([]);
    } finally {
      await bare.close();
    }
  }, 60_000);
  it('shows Degraded when they do not answer, without throwing', async () => {
    const silent = await createHarness({ statesvc: { url: DEAD }, routerAdminUrls: () => [DEAD], upstreamTimeoutMs: 1000 });
    try {
      await silent.store.apply(fnManifest('quiet', undefined, { state: {} }));
      const r = await silent.as('viewer').overview.summary();
      const byId = Object.fromEntries(r.components.map((c) => [c.id, c]));
      expect(byId.statesvc!.health).toBe('Degraded');
      expect(byId.statesvc!.message).toMatch(/statesvc did not answer/);
      expect(byId.router!.health).toBe('Degraded');
      expect(byId.functions).toMatchObject({ health: 'Unknown' });
      expect(r.functions[0]).toMatchObject({ name: 'quiet', requests: null, state: { keyspace: 'quiet', keys: null, keysPercent: null } });
    } finally {
      await silent.close();
    }
  }, 60_000);
  it('shows statesvc Degraded when /healthz answers but the usage read fails', async () => {
    const half = await serve((p) => (p === '/healthz' ? { status: 200, body: { status: 'ok' } } : { status: 403, body: { error: 'bad signature' } }));
    const hh = await createHarness({ statesvc: { url: half } });
    try {
      const r = await hh.as('viewer').overview.summary();
      expect(r.components.find((c) => c.id === 'statesvc')).toMatchObject({ health: 'Degraded', message: expect.stringContaining('bad signature') });
    } finally {
      await hh.close();
    }
  }, 60_000);
});
