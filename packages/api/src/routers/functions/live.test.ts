import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issuesOf } from '../../errors.ts';
import { createHarness, fnManifest, rejection, type Harness } from '../../testing/api-harness.ts';

// A router replica stood in by an HTTP server with the documented /v1/stats shape (the e2e suite
// drives real routers); a second URL that refuses connections stands for a replica that is down.
let server: Server;
let h: Harness;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ functions: [{ namespace: 'default', function: 'web', requests: 50, stickyRequests: 40, stickyKeyMissing: 10, stickyHits: 30, teleports: 3 }], revisions: [{ namespace: 'default', function: 'web', revision: 'web-00002', averageConcurrency: 1.5, requests: 42, windowMs: 1000, inflight: 2, queued: 1 }] }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await createHarness({ routerAdminUrls: () => [url, 'http://127.0.0.1:9'], upstreamTimeoutMs: 2000 });
  await h.store.apply(fnManifest('web'));
}, 60_000);
afterAll(async () => {
  await h.close();
  await new Promise<void>((ok) => server.close(() => ok()));
});

describe('functions.live (viewer)', () => {
  it('reports per-revision RPS and concurrency and which replicas answered', async () => {
    const r = await h.as('viewer').functions.live({ name: 'web' });
    expect(r.revisions).toEqual([{ revision: 'web-00002', rps: 42, concurrency: 1.5, inflight: 2, queued: 1 }]);
    expect(r.replicas.map((x) => x.ok)).toEqual([true, false]);
    expect(r.sticky).toMatchObject({ requests: 50, stickyRequests: 40, stickyKeyMissing: 10, teleports: 3, hitRatio: 0.75, replicas: 1 });
    // Not reconciled yet: no Ready condition.
    expect(r.health?.health).toBe('Unknown');
    const other = await h.as('viewer').functions.live({ name: 'other' });
    expect(other).toMatchObject({ revisions: [], sticky: null, health: null });
  });
  it('health follows the Ready condition the operator wrote', async () => {
    const fn = (await h.store.get('Function', 'default', 'web'))!;
    await h.store.updateStatus('Function', 'default', 'web', { observedGeneration: fn.metadata.generation, latestReadyRevision: 'web-00002', conditions: [{ type: 'Ready', status: 'True', reason: 'Ready', message: '', lastTransitionTime: new Date().toISOString() }] });
    expect((await h.as('viewer').functions.live({ name: 'web' })).health).toEqual({ health: 'Healthy', message: 'serving web-00002' });
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).functions.live({ name: 'web' }))).code).toBe('UNAUTHORIZED');
  });
  it('refuses bad input with the zod path', async () => {
    const err = await rejection(h.as('viewer').functions.live({ namespace: 'Bad Namespace', name: 'web' }));
    expect(err.code).toBe('BAD_REQUEST');
    expect(issuesOf(err.cause)?.[0]?.path).toBe('namespace');
  });
});
