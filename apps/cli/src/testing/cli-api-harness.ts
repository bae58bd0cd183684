/**
 * Test harness: the real admin API handler (as the operator serves it) over an embedded store
 * and audit log, and the real `orrery` binary pointed at it with the admin token — so CLI tests
 * see the same role checks and audit rows a user would.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { asc } from 'drizzle-orm';
import { createApiHandler, createSession } from '@orrery/api';
import { auditLog, connect, type Connection } from '@orrery/db';
import { createLocalStore, type ResourceStore } from '@orrery/store';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
export const ADMIN_TOKEN = 'cli-api-admin-token-0123456789';

export interface CliRun {
  code: number | null;
  out: string;
  err: string;
}

export interface CliApiHarness {
  apiUrl: string;
  store: ResourceStore;
  conn: Connection;
  /** Runs `orrery …` against the API as the admin token unless `env` says otherwise. */
  orrery(args: string[], env?: Record<string, string>, stdin?: string): Promise<CliRun>;
  /** A session id for `who` with `role`, usable as ORRERY_API_TOKEN. */
  session(who: string, role: 'viewer' | 'operator' | 'admin'): Promise<string>;
  audit(): Promise<Array<typeof auditLog.$inferSelect>>;
  close(): Promise<void>;
}

export async function startCliApi(): Promise<CliApiHarness> {
  const cwd = mkdtempSync(join(tmpdir(), 'orrery-cli-api-'));
  const conn = connect({ url: '' });
  const store = await createLocalStore(conn);
  const server = createServer(createApiHandler(() => ({ store, db: conn, adminToken: ADMIN_TOKEN })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const apiUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    apiUrl,
    store,
    conn,
    orrery(args, env = {}, stdin) {
      return new Promise((resolve) => {
        // A developer's own platform settings must not leak into the test.
        const { ORRERY_STORE_URL: _s, ORRERY_STORE_TOKEN: _t, ORRERY_REGISTRY_ADMIN_URL: _r, ORRERY_DATA_DIR: _d, ...clean } = process.env;
        const child = spawn(process.execPath, [CLI, ...args], { cwd, env: { ...clean, ORRERY_API_URL: apiUrl, ORRERY_API_TOKEN: ADMIN_TOKEN, ...env }, stdio: [stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
        child.stdin?.end(stdin);
        let out = '';
        let err = '';
        child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
        child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
        child.on('exit', (code) => resolve({ code, out, err }));
      });
    },
    session: async (who, role) => (await createSession(conn, who, role, 600_000, new Date())).id,
    audit: () => conn.db.select().from(auditLog).orderBy(asc(auditLog.id)),
    async close() {
      await new Promise<void>((r) => server.close(() => r()));
      await store.close();
      await conn.close();
    },
  };
}
