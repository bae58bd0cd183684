import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@orrery/db';
import { createLocalStore, createHttpStore, type ResourceStore } from '@orrery/store';
import { createPlatformApi } from './platform-api.ts';

const ADMIN = 'admin-token-0123456789';
let base = '';
let store: ResourceStore;
const conn = connect({ url: '' });
const server = createServer();

beforeAll(async () => {
  store = await createLocalStore(conn);
  const api = await createPlatformApi({ store, db: conn, storeToken: 'store-token', adminToken: ADMIN });
  server.on('request', (req, res) => {
    void api.handle(req, res).then((handled) => {
      if (!handled) res.writeHead(418).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await store.close();
  await conn.close();
});

describe('platform API (the store and admin surfaces both backends serve)', () => {
  it('serves /v1/store/ with its token and /trpc/ over the same store, and leaves other paths to the caller', async () => {
    await createHttpStore(base, { token: 'store-token' }).apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'pa' }, spec: { template: { source: { inline: 'x' } } } });
    expect((await fetch(`${base}/v1/store/Function`)).status).toBe(401);
    const r = await fetch(`${base}/trpc/functions.list`, { headers: { authorization: `Bearer ${ADMIN}` } });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { result: { data: { items: Array<{ metadata: { name: string } }> } } };
    expect(body.result.data.items.map((f) => f.metadata.name)).toEqual(['pa']);
    expect((await fetch(`${base}/trpc/functions.list`)).status).toBe(401);
    expect((await fetch(`${base}/healthz`)).status).toBe(418);
  });
});
