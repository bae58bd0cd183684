/**
 * The store routing source against a real store: embedded PGlite behind the store's HTTP
 * surface (as the operator serves it), read through createHttpStore with a bearer token.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '@orrery/db';
import { createHttpStore, createLocalStore, createStoreHandler, type ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteTable } from './route-table.ts';
import type { RouteSource } from './routes-file.ts';
import { watchStoreRoutes } from './store-route-source.ts';
import { eventually } from '../testing/processes.ts';

const TOKEN = 'router-store-source-test-token';
let local: ResourceStore;
let conn: ReturnType<typeof connect>;
let server: Server;
let source: RouteSource;
let table: RouteTable | undefined;
const errors: unknown[] = [];

const fn = (traffic?: unknown[]) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { template: { source: { inline: 'x' }, timeoutSeconds: 7 }, ...(traffic ? { traffic } : {}) },
});
const rev = (name: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Revision',
  metadata: { name, namespace: 'shop', labels: { 'orrery.dev/function': 'web' } },
  spec: { function: 'web', template: { source: { inline: 'x' }, timeoutSeconds: 7 } },
});
const split = () => table?.get('shop', 'web')?.weighted.map((w) => `${w.route.revision}=${w.percent}`).join(',');

beforeAll(async () => {
  conn = connect({ url: '' });
  local = await createLocalStore(conn);
  await local.apply(fn());
  await local.apply(rev('web-00001'), { allowCreateOnlyKinds: true });
  const handle = createStoreHandler(local, { token: TOKEN });
  server = createServer((req, res) => void handle(req, res).then((ok) => ok || res.writeHead(404).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  source = await watchStoreRoutes(createHttpStore(url, { token: TOKEN, reconnectMs: 100 }), (t) => (table = t), (e) => errors.push(e));
}, 60_000);

afterAll(async () => {
  source?.stop();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await local?.close();
  await conn?.close();
});

describe('routing table from the resource store', () => {
  it('starts with the listed Functions and Revisions (startup waits for the first table)', () => {
    expect(split()).toBe('web-00001=100');
    expect(table!.get('shop', 'web')!.weighted[0]!.route.timeoutMs).toBe(7000);
    expect(errors).toEqual([]);
  });

  it('follows status.traffic as the operator resolves it, then spec edits, then deletion', { timeout: 30_000 }, async () => {
    await local.apply(rev('web-00002'), { allowCreateOnlyKinds: true });
    await eventually(() => (split() === 'web-00002=100' ? true : undefined), 'latest = highest revision without status');
    await local.updateStatus('Function', 'shop', 'web', { traffic: [{ revisionName: 'web-00001', percent: 60 }, { revisionName: 'web-00002', percent: 40, tag: 'next' }] });
    await eventually(() => (split() === 'web-00001=60,web-00002=40' ? true : undefined), 'status.traffic applied');
    expect(table!.get('shop', 'web')!.tags.get('next')!.revision).toBe('web-00002');
    await local.delete('Function', 'shop', 'web');
    await eventually(() => (table && !table.get('shop', 'web') ? true : undefined), 'function removed');
  });
});
