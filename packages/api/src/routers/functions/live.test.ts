import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, rejection, type Harness } from '../../testing/api-harness.ts';

// A router replica stood in by an HTTP server with the documented /v1/stats shape (the e2e suite
// drives real routers); a second URL that refuses connections stands for a replica that is down.
let server: Server;
let h: Harness;
beforeAll(async () => {
  server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ functions: [], revisions: [{ namespace: 'default', function: 'web', revision: 'web-00002', averageConcurrency: 1.5, requests: 42, windowMs: 1000, inflight: 2, queued: 1 }] }));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await createHarness({ routerAdminUrls: () => [url, 'http://127.0.0.1:9'], upstreamTimeoutMs: 2000 });
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
    expect((await h.as('viewer').functions.live({ name: 'other' })).revisions).toEqual([]);
  });
  it('needs a session', async () => {
    expect((await rejection(h.as(undefined).functions.live({ name: 'web' }))).code).toBe('UNAUTHORIZED');
  });
});
