/**
 * The operator's whole output is structured (docs/operations.md "Logs"): the real binary on the
 * local backend at debug level, over Postgres, with canary secrets in every place it receives
 * them (the store token, admin token, master key and registry master key files, the database
 * password in DATABASE_URL), driven through a deploy that reconciles to a running worker, calls
 * refused because they carry the wrong canary, a wrong and a right admin login, and a stop.
 * Every line is a JSON record of the operator, and no canary shows anywhere.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase } from '@orrery/db';
import { logLineProblems, logRecords, startLoggingProcess, type LoggingProcess } from '@orrery/log/testing';
import type { OrreryFunction } from '@orrery/spec';
import { createHttpStore } from '@orrery/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { until } from './testing/spawn-server.ts';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', 'bin', 'orrery-operator.mjs');
const CANARIES = {
  store: `canary-store-token-${randomBytes(6).toString('hex')}`,
  admin: `canary-admin-token-${randomBytes(6).toString('hex')}`,
  masterKey: randomBytes(32).toString('hex'),
  registryMasterKey: randomBytes(32).toString('hex'),
  dbPassword: `canary-pg-pass-${randomBytes(6).toString('hex')}`,
};

const dir = mkdtempSync(join(tmpdir(), 'orrery-operator-logs-'));
let db: Awaited<ReturnType<typeof createTestDatabase>>;
let op: LoggingProcess;

beforeAll(async () => {
  db = await createTestDatabase('orrery_oplogs');
  const dbUrl = new URL(db.url);
  dbUrl.password = CANARIES.dbPassword; // the test server trusts local connections: any password works
  const file = (name: string, value: string) => {
    writeFileSync(join(dir, name), `${value}\n`, { mode: 0o600 });
    return join(dir, name);
  };
  op = await startLoggingProcess(
    BIN,
    ['--port', '0', '--data-dir', join(dir, 'op'), '--endpoints-file', join(dir, 'endpoints.yaml'), '--resync-seconds', '2',
      '--store-token-file', file('store.token', CANARIES.store), '--admin-token-file', file('admin.token', CANARIES.admin),
      '--master-key-file', file('master.key', CANARIES.masterKey), '--registry-master-key-file', file('registry-master.key', CANARIES.registryMasterKey)],
    { ORRERY_LOG_LEVEL: 'debug', DATABASE_URL: dbUrl.toString() },
    90_000,
  );
}, 120_000);

afterAll(async () => {
  await op?.stop(30_000);
  await db?.drop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

const login = async (token: string) => {
  const res = await fetch(`${op.url}/trpc/auth.login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'token', token }) });
  await res.body?.cancel();
  return res.status;
};

describe('operator logs', () => {
  it('are JSON records of the operator with no secret in them, through a deploy, refusals, logins and a stop', { timeout: 150_000 }, async () => {
    // The store token is the one in use: a deploy with it reconciles to a Ready revision.
    const store = createHttpStore(op.url, { token: CANARIES.store });
    await store.apply({
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Function',
      metadata: { name: 'hello', namespace: 'default' },
      spec: { template: { source: { inline: 'export default async () => new Response("hi");' }, timeoutSeconds: 5 } },
    });
    await until(
      () => store.get('Function', 'default', 'hello') as Promise<OrreryFunction | undefined>,
      (f) => f?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True',
      90_000,
      'function Ready',
    );
    await store.close();
    // Wrong credentials, each a canary the operator knows for something else.
    const workers = await fetch(`${op.url}/v1/workers`, { headers: { authorization: `Bearer ${CANARIES.admin}` } });
    expect(workers.status).toBe(401);
    await workers.body?.cancel();
    expect(await login(CANARIES.store)).toBeGreaterThanOrEqual(400);
    expect(await login(CANARIES.admin)).toBe(200);
    expect(await op.stop(30_000)).toBe(0);

    const out = { stdout: op.stdout(), stderr: op.stderr() };
    expect(logLineProblems(out, 'operator')).toEqual([]);
    for (const [name, canary] of Object.entries(CANARIES)) expect(out.stdout + out.stderr, name).not.toContain(canary);
    const records = logRecords(out.stderr);
    expect(records.map((r) => r.msg)).toEqual(
      expect.arrayContaining(['operator started', 'created revision default/hello-00001', 'SIGTERM: stopping workers and the store']),
    );
    expect(records.find((r) => r.msg === 'operator started')).toMatchObject({ level: 'info', store: 'postgres', masterKey: 'configured' });
  });
});
