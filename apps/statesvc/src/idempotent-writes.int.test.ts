/**
 * Idempotent writes through the real `orrery-statesvc` process, on the memory driver with a
 * journal and on Postgres: the process is killed by the `exit-after-commit` fail point right
 * after a write committed and before it answered, restarted, and the client's retry with the
 * same `Idempotency-Key` gets the stored answer; the write was applied exactly once (the
 * key's version, and the change count: journal lines on memory, the row's xmin and the change
 * feed's rows on Postgres). Then the Node SDK does the same on its own, and concurrent retries
 * over HTTP apply once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { createStateClient } from '@orrery/sdk';
import { MEMORY_JOURNAL_FILE } from '@orrery/statestore';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x1d);
const TOKEN = deriveStateToken(MASTER, 'default', 'orders');
const SCOPE = { authorization: `Bearer ${TOKEN}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'orders' };
const FAIL_POINT_ENV = { ORRERY_TEST_FAIL_POINTS: '1' };

/** A port nobody listens on now (the restarted statesvc must come back on the same one for the SDK). */
async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  const { port } = srv.address() as { port: number };
  await new Promise((r) => srv.close(r));
  return port;
}

async function send(url: string, method: string, path: string, o: { body?: string; headers?: Record<string, string> } = {}) {
  const res = await fetch(url + path, { method, headers: { ...SCOPE, ...o.headers }, body: o.body });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: text ? (JSON.parse(text) as Record<string, unknown>) : null };
}

/** The request dies with its process: fetch fails without an answer. */
async function expectNoAnswer(url: string, method: string, path: string, o: { body?: string; headers?: Record<string, string> }) {
  const err = await fetch(url + path, { method, headers: { ...SCOPE, ...o.headers }, body: o.body }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the write must not be answered').toBeInstanceOf(Error);
}

interface DriverSetup {
  args: string[];
  /** How many times the key was written: journal records on memory, change-feed rows on Postgres. */
  writesOf(key: string): Promise<number>;
  /** Something that changes whenever the key's row is rewritten (Postgres: xmin; memory: the version). */
  rowStamp(key: string): Promise<string>;
  cleanup(): Promise<void>;
}

async function memorySetup(dir: string): Promise<DriverSetup> {
  const dataDir = join(dir, 'data');
  const journal = join(dataDir, MEMORY_JOURNAL_FILE);
  const records = (key: string) =>
    readFileSync(journal, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith('{"t":"set"') && (JSON.parse(l) as { k: string }).k === key);
  return {
    args: ['--driver', 'memory', '--data-dir', dataDir],
    // A restart compacts the journal to one `set` per key; every write appends one more.
    writesOf: async (key) => records(key).length,
    rowStamp: async (key) => String((JSON.parse(records(key).at(-1)!) as { ver: number }).ver),
    cleanup: async () => {},
  };
}

async function postgresSetup(): Promise<DriverSetup> {
  const tdb = await createTestDatabase();
  const sql = postgres(tdb.url, { max: 1, onnotice: () => {} });
  return {
    args: ['--driver', 'postgres', '--database-url', tdb.url],
    writesOf: async (key) => Number((await sql`select count(*)::int as n from state_changes where keyspace = 'orders' and key = ${key} and op = 'set'`)[0]!.n),
    rowStamp: async (key) => String((await sql`select xmin::text as x from state_entries where keyspace = 'orders' and key = ${key}`)[0]!.x),
    cleanup: async () => {
      await sql.end({ timeout: 5 });
      await tdb.drop();
    },
  };
}

for (const driver of ['memory', 'postgres'] as const) {
  describe(`idempotent writes survive a crash between commit and reply (${driver} driver)`, () => {
    let dir: string;
    let setup: DriverSetup;
    let base: string[];
    let svc: StatesvcProcess | undefined;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'orrery-idem-'));
      writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
      writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: orders, idempotencyRetention: 1h}\n');
      setup = driver === 'memory' ? await memorySetup(dir) : await postgresSetup();
      base = ['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'), ...setup.args];
    }, 90_000);
    afterAll(async () => {
      await svc?.stop();
      await setup?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Starts statesvc; with the fail point it kills itself after the first write commits. */
    async function start(opts: { failPoint?: boolean; port?: number } = {}): Promise<StatesvcProcess> {
      const args = [...base, ...(opts.port ? ['--port', String(opts.port)] : []), ...(opts.failPoint ? ['--test-fail-point', 'exit-after-commit'] : [])];
      svc = await spawnStatesvc(args, { env: FAIL_POINT_ENV });
      return svc;
    }

    async function killedByFailPoint(p: StatesvcProcess): Promise<void> {
      await new Promise<void>((resolve) => (p.proc.exitCode !== null || p.proc.signalCode !== null ? resolve() : p.proc.once('exit', () => resolve())));
      expect(p.proc.signalCode).toBe('SIGKILL');
    }

    it('the fail point is refused without ORRERY_TEST_FAIL_POINTS=1', { timeout: 60_000 }, async () => {
      await expect(spawnStatesvc([...base, '--test-fail-point', 'exit-after-commit'], { env: { ORRERY_TEST_FAIL_POINTS: '' } })).rejects.toThrow(/ORRERY_TEST_FAIL_POINTS=1/);
    });

    it('PUT: killed after the commit; the retry after a restart is answered from the stored outcome, applied once', { timeout: 120_000 }, async () => {
      const put = { body: '{"total":42}', headers: { 'idempotency-key': 'order-1-create', 'content-type': 'application/json' } };
      const a = await start({ failPoint: true });
      await expectNoAnswer(a.url, 'PUT', '/v1/state/order-1', put);
      await killedByFailPoint(a);

      const b = await start();
      // Applied once already: the value is there, written once.
      const before = await send(b.url, 'GET', '/v1/state/order-1');
      expect(before.status).toBe(200);
      expect(before.json).toEqual({ value: { total: 42 } });
      const version = Number(before.headers.get('x-orrery-state-version'));
      expect(await setup.writesOf('order-1')).toBe(1);
      const stamp = await setup.rowStamp('order-1');

      const retry = await send(b.url, 'PUT', '/v1/state/order-1', put);
      expect(retry.status).toBe(200);
      expect(retry.text).toBe(`{"version":${version}}`);
      expect(retry.headers.get('x-orrery-state-version')).toBe(String(version));
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      // Not applied again: same version, same row, still one write.
      expect((await send(b.url, 'GET', '/v1/state/order-1')).headers.get('x-orrery-state-version')).toBe(String(version));
      expect(await setup.rowStamp('order-1')).toBe(stamp);
      expect(await setup.writesOf('order-1')).toBe(1);

      // The same key for another request is refused and writes nothing.
      const other = await send(b.url, 'PUT', '/v1/state/order-1', { ...put, body: '{"total":43}' });
      expect(other.status).toBe(422);
      expect(other.json).toMatchObject({ code: 'idempotency_mismatch' });
      expect(await setup.writesOf('order-1')).toBe(1);
      // The control: without the header the same retry writes a second time.
      const plain = await send(b.url, 'PUT', '/v1/state/order-1', { body: put.body });
      expect(plain.json!.version).toBeGreaterThan(version);
      expect(await setup.writesOf('order-1')).toBe(2);
      expect(await (await fetch(`${b.url}/metrics`)).text()).toMatch(/orrery_statestore_idempotent_replays_total\{op="set"\} 1\b/);
      await b.stop();
    });

    it('DELETE: killed after the commit; the retry answers "deleted", not 404', { timeout: 120_000 }, async () => {
      const a = await start({ failPoint: true });
      await expectNoAnswer(a.url, 'DELETE', '/v1/state/order-1', { headers: { 'idempotency-key': 'order-1-cancel' } });
      await killedByFailPoint(a);
      const b = await start();
      expect((await send(b.url, 'GET', '/v1/state/order-1')).status).toBe(404);
      const retry = await send(b.url, 'DELETE', '/v1/state/order-1', { headers: { 'idempotency-key': 'order-1-cancel' } });
      expect({ status: retry.status, body: retry.text, replayed: retry.headers.get('idempotent-replayed') }).toEqual({ status: 200, body: '{"deleted":true}', replayed: 'true' });
      expect((await send(b.url, 'DELETE', '/v1/state/order-1')).status).toBe(404);
      await b.stop();
    });

    it('the Node SDK retries on its own with the key it made, and the write lands once', { timeout: 120_000 }, async () => {
      const port = await freePort();
      const tokenPath = join(dir, 'token.json');
      writeFileSync(tokenPath, JSON.stringify({ namespace: 'default', keyspace: 'orders', token: TOKEN }));
      const a = await start({ failPoint: true, port });
      const client = createStateClient({ url: a.url, tokenPath, retries: 30, retryDelayMs: 100 });
      const pending = client.set('order-2', { total: 7 });
      // The first attempt kills statesvc after its commit; bring it back on the same port while the SDK backs off.
      await killedByFailPoint(a);
      const b = await start({ port });
      const { version } = await pending;
      const got = await send(b.url, 'GET', '/v1/state/order-2');
      expect(got.json).toEqual({ value: { total: 7 } });
      expect(got.headers.get('x-orrery-state-version')).toBe(String(version));
      expect(await setup.writesOf('order-2')).toBe(1);
      expect(await (await fetch(`${b.url}/metrics`)).text()).toMatch(/orrery_statestore_idempotent_replays_total\{op="set"\} 1\b/);
      await b.stop();
    });

    it('16 concurrent requests with one key apply once; the others are replays', { timeout: 60_000 }, async () => {
      const b = await start();
      const answers = await Promise.all(
        Array.from({ length: 16 }, () => send(b.url, 'POST', '/v1/state/order-3/cas', { body: '{"expectVersion":0,"value":{"total":1}}', headers: { 'idempotency-key': 'order-3-create' } })),
      );
      expect(answers.map((a) => a.status)).toEqual(Array.from({ length: 16 }, () => 200));
      expect(new Set(answers.map((a) => a.text)).size).toBe(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(15);
      expect(await setup.writesOf('order-3')).toBe(1);
      await b.stop();
    });
  });
}
