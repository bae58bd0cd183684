/**
 * `orrery-statesvc --store-url`: the real binary reads keyspace declarations from a real store
 * (embedded PGlite served over HTTP like the operator does) and follows changes live.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { connect } from '@orrery/db';
import { createLocalStore, createStoreHandler, type ResourceStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const KEY = Buffer.alloc(32, 0x3c);
const STORE_TOKEN = 'statesvc-store-source-token';
const dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-store-'));
let local: ResourceStore;
let conn: ReturnType<typeof connect>;
let server: Server;
let svc: StatesvcProcess;

const fn = (state?: Record<string, unknown>) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'counter', namespace: 'team' },
  spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) },
});

async function put(keyspace: string, value: string): Promise<{ status: number; code?: string }> {
  const res = await fetch(`${svc.url}/v1/state/k1`, {
    method: 'PUT',
    headers: {
      authorization: `Bearer ${deriveStateToken(KEY, 'team', keyspace)}`,
      'x-orrery-state-namespace': 'team',
      'x-orrery-state-keyspace': keyspace,
      'content-type': 'application/json',
    },
    body: JSON.stringify(value),
  });
  const body = (await res.json().catch(() => ({}))) as { code?: string };
  return { status: res.status, code: body.code };
}

async function until<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await read();
    if (ok(v)) return v;
    if (Date.now() > end) throw new Error(`${what}: not within ${ms} ms, last ${JSON.stringify(v)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  conn = connect({ url: '' });
  local = await createLocalStore(conn);
  await local.apply(fn({ keyspace: 'tally', maxValueBytes: 16 }));
  const handle = createStoreHandler(local, { token: STORE_TOKEN });
  server = createServer((req, res) => void handle(req, res).then((ok) => ok || res.writeHead(404).end()));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  writeFileSync(join(dir, 'master.key'), KEY.toString('hex'));
  writeFileSync(join(dir, 'store.token'), `${STORE_TOKEN}\n`);
  const storeUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--store-url', storeUrl, '--store-token-file', join(dir, 'store.token')]);
}, 60_000);

afterAll(async () => {
  await svc?.stop();
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r));
  await local?.close();
  await conn?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('statesvc keyspaces from the resource store', () => {
  it("declares a stateful Function's keyspace with its quotas from startup", async () => {
    expect(await put('tally', 'small')).toEqual({ status: 200, code: undefined });
    expect((await put('tally', 'x'.repeat(64))).code).toBe('quota_value_bytes');
    expect((await put('counter', 'small')).status).toBe(403); // the default name is not declared: keyspace is set
  });

  it('follows edits and deletions of the Function', { timeout: 30_000 }, async () => {
    await local.apply(fn({ keyspace: 'tally', maxValueBytes: 1024 }));
    await until(() => put('tally', 'x'.repeat(64)), (r) => r.status === 200, 'raised quota applies');
    await local.apply(fn());
    await until(() => put('tally', 'small'), (r) => r.status === 403, 'state removed → keyspace undeclared');
    await local.delete('Function', 'team', 'counter');
    await local.apply({ ...fn({}), metadata: { name: 'counter', namespace: 'team' } });
    await until(() => put('counter', 'small'), (r) => r.status === 200, 'default keyspace = function name');
  });
});
