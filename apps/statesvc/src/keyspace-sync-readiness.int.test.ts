/**
 * RFC-0023: /readyz waits for the first sync of the keyspace declarations, not only the driver.
 * The real binary starts against a resource store that is not there yet: it is not ready and
 * answers a legitimate function 503 (never 403: an empty table knows nothing yet); once the store
 * comes up and the first sync lands, it is ready and serves the function.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { connect } from '@orrery/db';
import { checkRouteAnswer, STATESVC_HTTP_API } from '@orrery/spec';
import { createLocalStore, createStoreHandler, type ResourceStore } from '@orrery/store';
import { afterAll, describe, expect, it } from 'vitest';
import { KEYSPACES_NOT_SYNCED } from './server.ts';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const KEY = Buffer.alloc(32, 0x4e);
const STORE_TOKEN = 'statesvc-readiness-store-token';
const dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-ready-'));
let conn: ReturnType<typeof connect> | undefined;
let local: ResourceStore | undefined;
let server: Server | undefined;
let svc: StatesvcProcess | undefined;

afterAll(async () => {
  await svc?.stop();
  server?.closeAllConnections();
  await new Promise((r) => (server ? server.close(r) : r(undefined)));
  await local?.close();
  await conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function json(res: Response): Promise<{ status: number; body: { code?: string; error?: string; status?: string } }> {
  return { status: res.status, body: (await res.json().catch(() => ({}))) as { code?: string; error?: string } };
}

const readyz = async () => json(await fetch(`${svc!.url}/readyz`));
const put = async (keyspace: string) =>
  json(
    await fetch(`${svc!.url}/v1/state/k`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${deriveStateToken(KEY, 'team', keyspace)}`,
        'x-orrery-state-namespace': 'team',
        'x-orrery-state-keyspace': keyspace,
      },
      body: '1',
    }),
  );

describe('statesvc readiness follows the first keyspace sync', () => {
  it('not ready (503, never 403) while the store is unreachable; ready and serving after the first sync', { timeout: 60_000 }, async () => {
    const port = await freePort();
    writeFileSync(join(dir, 'master.key'), KEY.toString('hex'));
    writeFileSync(join(dir, 'store.token'), STORE_TOKEN);
    // Nothing listens on the store port yet: statesvc gives up waiting after 5 s and listens.
    svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--store-url', `http://127.0.0.1:${port}`, '--store-token-file', join(dir, 'store.token')]);

    const notReady = await readyz();
    expect(notReady).toEqual({ status: 503, body: { code: 'capability_unavailable', error: KEYSPACES_NOT_SYNCED } });
    expect(checkRouteAnswer(STATESVC_HTTP_API, 'GET', '/readyz', notReady.status, notReady.body)).toBe('GET /readyz capability_unavailable');
    expect(await put('tally')).toEqual({ status: 503, body: { code: 'capability_unavailable', error: KEYSPACES_NOT_SYNCED } });
    const list = await fetch(`${svc.url}/v1/state`, {
      headers: { authorization: `Bearer ${deriveStateToken(KEY, 'team', 'tally')}`, 'x-orrery-state-namespace': 'team', 'x-orrery-state-keyspace': 'tally' },
    });
    expect((await json(list)).body.code).toBe('capability_unavailable');

    // The store comes up on that port with one stateful Function.
    conn = connect({ url: '' });
    local = await createLocalStore(conn);
    await local.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'counter', namespace: 'team' },
      spec: { template: { source: { inline: 'x' } }, state: { keyspace: 'tally' } },
    });
    const handle = createStoreHandler(local, { token: STORE_TOKEN });
    server = createServer((req, res) => void handle(req, res).then((ok) => ok || res.writeHead(404).end()));
    await new Promise<void>((r) => server!.listen(port, '127.0.0.1', r));

    const end = Date.now() + 20_000;
    // While the in-process store migrated (PGlite, which blocks this event loop for seconds on a
    // loaded machine) statesvc closed the idle kept-alive connection, and the client may send the
    // first poll on it before it sees the close: a poll that fails to connect is "not ready yet".
    const pollReadyz = () => readyz().catch((err: unknown) => ({ status: 0, body: { error: String(err) } }));
    while ((await pollReadyz()).status !== 200) {
      if (Date.now() > end) throw new Error(`statesvc not ready 20 s after the store came up:\n${svc.stderr()}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready' } });
    expect((await put('tally')).status).toBe(200);
    // Synced: an undeclared keyspace is now refused for what it is.
    expect((await put('nobody')).body.code).toBe('forbidden');
  });
});
