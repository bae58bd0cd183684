import { describe, expect, it } from 'vitest';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, createTestDatabase } from '@orrery/db';
import { createHttpStore } from './http/store-client.ts';
import { createStoreHandler } from './http/serve-store.ts';
import { createLocalStore } from './local-store.ts';
import { describeStoreConformance, type OpenedStore } from './testing/store-conformance.ts';
import { StoreError, type WatchEvent } from './types.ts';

type Driver = { name: string; open(): Promise<OpenedStore> };
const STORE_OPTS = { pollMs: 200, retainEvents: 5, compactEvery: 10 };
const drivers: Driver[] = [
  {
    name: 'pglite (embedded)',
    async open() {
      const conn = connect({ url: '' });
      const store = await createLocalStore(conn, STORE_OPTS);
      return { store, cleanup: async () => (await store.close(), await conn.close()) };
    },
  },
  {
    name: 'postgres',
    async open() {
      const tdb = await createTestDatabase('orrery_store');
      const conn = connect({ url: tdb.url, max: 4 });
      const store = await createLocalStore(conn, STORE_OPTS);
      return { store, cleanup: async () => (await store.close(), await conn.close(), await tdb.drop()) };
    },
  },
  {
    name: 'http client of an embedded store',
    async open() {
      const conn = connect({ url: '' });
      const local = await createLocalStore(conn, STORE_OPTS);
      const handle = createStoreHandler(local, { token: 'test-token' });
      const server = createServer((req, res) => {
        void handle(req, res).then((handled) => {
          if (!handled) res.writeHead(404).end();
        });
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const { port } = server.address() as AddressInfo;
      const store = createHttpStore(`http://127.0.0.1:${port}`, { token: 'test-token', reconnectMs: 100 });
      return {
        store,
        operatorStore: local,
        cleanup: async () => {
          server.closeAllConnections();
          await new Promise((r) => server.close(r));
          await local.close();
          await conn.close();
        },
      };
    },
  },
];

for (const d of drivers) describeStoreConformance(d.name, () => d.open());

describe('resource store on postgres', () => {
  it('delivers changes to a second process-like store through LISTEN/NOTIFY', async () => {
    const tdb = await createTestDatabase('orrery_store_notify');
    const conn = connect({ url: tdb.url, max: 2 });
    const store = await createLocalStore(conn, STORE_OPTS);
    const conn2 = connect({ url: tdb.url, max: 2 });
    const store2 = await createLocalStore(conn2, { skipMigrate: true, pollMs: 60_000 });
    try {
      const seen: WatchEvent[] = [];
      const w = store2.watch('Function', { namespace: 'notify' }, (e) => seen.push(e));
      await new Promise((r) => setTimeout(r, 200));
      await store.apply({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'lambda', namespace: 'notify' }, spec: { template: { source: { inline: 'x' } } } });
      // the safety poll is a minute: only the notification can deliver this in time
      const end = Date.now() + 5000;
      while (seen.length < 1 && Date.now() < end) await new Promise((r) => setTimeout(r, 20));
      expect(seen[0]?.object.metadata.name).toBe('lambda');
      w.close();
    } finally {
      await store2.close();
      await conn2.close();
      await store.close();
      await conn.close();
      await tdb.drop();
    }
  }, 60_000);
});

describe('store HTTP surface', () => {
  it('refuses a wrong token with 401, an unknown kind with 404 and a label without a value with 400', async () => {
    const conn = connect({ url: '' });
    const local = await createLocalStore(conn);
    const handle = createStoreHandler(local, { token: 'right' });
    const server = createServer((req, res) => void handle(req, res));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const wrong = await fetch(`${base}/v1/store/Function`, { headers: { authorization: 'Bearer wrong' } });
      expect(wrong.status).toBe(401);
      expect(((await wrong.json()) as { code: string }).code).toBe('unauthorized');
      const unknown = await fetch(`${base}/v1/store/Pod`, { headers: { authorization: 'Bearer right' } });
      expect(unknown.status).toBe(404);
      const bareLabel = await fetch(`${base}/v1/store/Function?label=app`, { headers: { authorization: 'Bearer right' } });
      expect(bareLabel.status).toBe(400);
      expect(((await bareLabel.json()) as { code: string }).code).toBe('invalid_label_selector');
      const badJson = await fetch(`${base}/v1/store/apply`, { method: 'POST', body: '{', headers: { authorization: 'Bearer right' } });
      expect(badJson.status).toBe(400);
      const invalid = await createHttpStore(base, { token: 'right' }).apply({ kind: 'Function' }).catch((e: unknown) => e);
      expect((invalid as StoreError).code).toBe('invalid');
      expect((invalid as StoreError).details?.length).toBeGreaterThan(0);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await local.close();
      await conn.close();
    }
  }, 60_000);
});
