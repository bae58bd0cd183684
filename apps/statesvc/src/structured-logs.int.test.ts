/**
 * statesvc's whole output is structured (docs/operations.md "Logs"): the real binary at debug
 * level on real Postgres, with canary secrets where it receives them (the password in
 * DATABASE_URL, the store token file), driven through a good request, a refused token, a store
 * that answers 500 with the token echoed back, and a database that disappears under it (the 5xx
 * path that logs what the driver said). Every line is a JSON record of statesvc; no canary shows.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deriveStateToken } from '@orrery/auth';
import { createTestDatabase } from '@orrery/db';
import { logLineProblems, logRecords, startLoggingProcess, type LoggingProcess } from '@orrery/log/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATESVC_BIN } from './spawn-statesvc.ts';

const DB_PASSWORD = 'canary-db-password-5d2c';
const STORE_TOKEN = 'canary-store-token-a81f';
const KEY = Buffer.alloc(32, 7);

const dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-logs-'));
const seen: string[] = [];
let store: Server;
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let svc: LoggingProcess;

const state = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${svc.url}/v1/state/${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'x-orrery-state-namespace': 'default', 'x-orrery-state-keyspace': 'cart' } });

beforeAll(async () => {
  // Stands in for the operator's resource store: refuses, echoing the bare token it was sent.
  store = createServer((req, res) => {
    const token = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    seen.push(token);
    res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: `refused credential ${token}!` }));
  });
  await new Promise<void>((r) => store.listen(0, '127.0.0.1', r));
  writeFileSync(join(dir, 'store.token'), `${STORE_TOKEN}\n`);
  writeFileSync(join(dir, 'master.key'), KEY.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: default, keyspace: cart}\n');
  db = await createTestDatabase('orrery_statesvc_logs');
  // The test server trusts local connections: any password gets in, so the canary can be one.
  const url = new URL(db.url);
  url.password = DB_PASSWORD;
  svc = await startLoggingProcess(
    STATESVC_BIN,
    ['--port', '0', '--driver', 'postgres', '--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml'),
      '--store-url', `http://127.0.0.1:${(store.address() as AddressInfo).port}`, '--store-token-file', join(dir, 'store.token'), '--pool-size', '2'],
    { ORRERY_LOG_LEVEL: 'debug', DATABASE_URL: url.toString() },
    60_000,
  );
}, 90_000);

afterAll(async () => {
  await svc?.stop();
  await new Promise((r) => store?.close(r));
  await db?.drop().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
});

describe('statesvc logs', () => {
  it('are JSON records of statesvc with no secret in them, through refusals, a store outage and a lost database', { timeout: 90_000 }, async () => {
    const token = deriveStateToken(KEY, 'default', 'cart');
    expect((await state('k', token, { method: 'PUT', body: '"v"' })).status).toBe(200);
    expect((await state('k', 'not-a-valid-token')).status).toBe(403);
    expect(seen).toContain(STORE_TOKEN);
    await db.drop();
    const lost = await state('k', token);
    expect(lost.status).toBeGreaterThanOrEqual(500);
    await svc.stop();

    const out = { stdout: svc.stdout(), stderr: svc.stderr() };
    expect(logLineProblems(out, 'statesvc')).toEqual([]);
    expect(out.stdout + out.stderr).not.toContain(DB_PASSWORD);
    expect(out.stdout + out.stderr).not.toContain(STORE_TOKEN);
    const records = logRecords(out.stderr);
    expect(records.some((r) => r.level === 'warn' && /^resource store: /.test(String(r.msg)))).toBe(true);
    expect(records.some((r) => r.level === 'error' && /^(internal error|\w+): /.test(String(r.msg)))).toBe(true);
    expect(records.map((r) => r.msg)).toContain('SIGTERM: shutting down');
  });
});
