/**
 * `orrery apply|get|delete` through the admin API, as after `orrery up`: the real binary against
 * the real API handler over an embedded store and audit log. Every change is audited under
 * the caller; a wrong token or a viewer's session is refused with a message that says why.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler, createSession } from '@orrery/api';
import { auditLog, connect, type Connection } from '@orrery/db';
import { createLocalStore, type ResourceStore } from '@orrery/store';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const EXAMPLES = join(import.meta.dirname, '..', '..', '..', '..', 'examples');
const ADMIN_TOKEN = 'cli-api-admin-token-0123456789';
const cwd = mkdtempSync(join(tmpdir(), 'orrery-cli-api-'));
let conn: Connection;
let store: ResourceStore;
let server: Server;
let apiUrl = '';

function orrery(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const { ORRERY_STORE_URL: _s, ORRERY_STORE_TOKEN: _t, ...clean } = process.env;
    const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...clean, ORRERY_API_URL: apiUrl, ORRERY_API_TOKEN: ADMIN_TOKEN, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

beforeAll(async () => {
  conn = connect({ url: '' });
  store = await createLocalStore(conn);
  server = createServer(createApiHandler(() => ({ store, db: conn, adminToken: ADMIN_TOKEN })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}, 60_000);
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
  await store.close();
  await conn.close();
});

describe('CLI through the admin API', () => {
  it('apply creates, get lists, delete deletes — each change in the audit log', { timeout: 60_000 }, async () => {
    const applied = await orrery(['apply', '-f', join(EXAMPLES, 'counter')]);
    expect(applied.code, applied.err).toBe(0);
    expect(applied.out).toContain('function.orrery.dev/counter created');
    expect((await orrery(['apply', '-f', join(EXAMPLES, 'counter')])).out).toContain('function.orrery.dev/counter unchanged');
    const got = await orrery(['get', 'functions']);
    expect(got.code, got.err).toBe(0);
    expect(got.out).toMatch(/counter/);
    const deleted = await orrery(['delete', 'function', 'counter']);
    expect(deleted.out).toContain('function.orrery.dev/counter deleted');
    expect(await store.get('Function', 'default', 'counter')).toBeUndefined();
    const rows = await conn.db.select().from(auditLog).orderBy(asc(auditLog.id));
    expect(rows.map((r) => `${r.action} ${r.target} ${r.result} ${r.who}`)).toEqual([
      'resources.applyManifest Function/default/counter ok admin-token',
      'resources.applyManifest Function/default/counter ok admin-token',
      'resources.delete Function/default/counter ok admin-token',
    ]);
  });

  it('a wrong token and a viewer session are refused with what to do', { timeout: 60_000 }, async () => {
    const wrong = await orrery(['apply', '-f', join(EXAMPLES, 'counter')], { ORRERY_API_TOKEN: 'not-the-token-at-all' });
    expect(wrong.code).toBe(1);
    expect(wrong.err).toMatch(/refused the token/);
    const viewer = await createSession(conn, 'vera', 'viewer', 60_000, new Date());
    const refused = await orrery(['apply', '-f', join(EXAMPLES, 'counter')], { ORRERY_API_TOKEN: viewer.id });
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/role viewer may not do this; it needs operator/);
    expect(await store.get('Function', 'default', 'counter')).toBeUndefined();
  });

  it('an API that does not answer says where it looked', { timeout: 30_000 }, async () => {
    const r = await orrery(['get', 'functions'], { ORRERY_API_URL: 'http://127.0.0.1:1' });
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/admin API at http:\/\/127\.0\.0\.1:1 did not answer/);
  });
});
