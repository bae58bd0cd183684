/**
 * Security tests' plumbing: a real orrery-operator process serving the admin API at /trpc/, over
 * a fresh Postgres database (audit log, users, sessions), with an admin token file and a users
 * file the test can rewrite while it runs. Requests go over real HTTP, as an outsider's would.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hashPassword } from '@orrery/api';
import { connect, createTestDatabase, type Connection } from '@orrery/db';
import { OPERATOR_BIN } from '../../testing/platform.ts';
import { spawnServer, type SpawnedServer } from '../../testing/spawn-server.ts';

export interface TestUser {
  name: string;
  role: 'viewer' | 'operator' | 'admin';
  password: string;
}

/** tRPC's answer envelope (and the refusals answered before tRPC), as far as tests read it. */
export interface TrpcJson {
  error?: { message: string; data?: { code?: string; httpStatus?: number; reason?: string; maxBatchSize?: number } };
  result?: { data?: unknown };
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** The body as JSON (undefined when it is not JSON; a batch answers a list). */
  json: (TrpcJson & TrpcJson[]) | undefined;
}

export interface AdminApiProcess {
  url: string;
  adminToken: string;
  op: SpawnedServer;
  /** The database the operator writes (audit rows, sessions), for reading what it stored. */
  conn: Connection;
  /** The users file the operator reads (`--users-file`). */
  usersFile: string;
  /** Rewrites the users file (atomically, by rename) with these users. */
  writeUsers(users: TestUser[]): Promise<void>;
  stop(): Promise<void>;
}

export async function usersFileText(users: TestUser[]): Promise<string> {
  const lines = await Promise.all(users.map(async (u) => `${u.name}:${u.role}:${await hashPassword(u.password)}`));
  return `# test users\n${lines.join('\n')}\n`;
}

export async function startAdminApi(o: { users?: TestUser[]; adminToken?: string; args?: string[]; env?: Record<string, string> } = {}): Promise<AdminApiProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'orrery-admin-api-'));
  const db = await createTestDatabase('orrery_sec');
  const adminToken = o.adminToken ?? `test-admin-${randomBytes(12).toString('hex')}`;
  const tokenFile = join(dir, 'admin.token');
  const usersFile = join(dir, 'users.txt');
  writeFileSync(tokenFile, `${adminToken}\n`, { mode: 0o600 });
  writeFileSync(usersFile, await usersFileText(o.users ?? []), { mode: 0o600 });
  let op: SpawnedServer | undefined;
  let conn: Connection | undefined;
  try {
    op = await spawnServer(OPERATOR_BIN, ['--port', '0', '--data-dir', join(dir, 'op'), '--database-url', db.url, '--admin-token-file', tokenFile, '--users-file', usersFile, '--resync-seconds', '30', ...(o.args ?? [])], o.env ?? {});
    conn = connect({ url: db.url, max: 2 });
  } catch (err) {
    await op?.stop();
    await db.drop();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const started = op;
  const c = conn;
  return {
    url: started.url,
    adminToken,
    usersFile,
    op: started,
    conn: c,
    async writeUsers(users) {
      writeFileSync(`${usersFile}.tmp`, await usersFileText(users), { mode: 0o600 });
      renameSync(`${usersFile}.tmp`, usersFile);
    },
    async stop() {
      await started.stop();
      await c.close();
      await db.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * One HTTP request with full control over headers (Origin, Content-Type, X-Forwarded-*) and the
 * local address it comes from (loopback has all of 127/8: a "proxy" can be 127.0.0.2).
 */
export function httpRequest(url: string, o: { method?: string; headers?: Record<string, string>; body?: string | Buffer; localAddress?: string } = {}): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: o.method ?? 'GET', headers: o.headers, localAddress: o.localAddress }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: HttpAnswer['json'];
        try {
          json = JSON.parse(text) as HttpAnswer['json'];
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(o.body);
  });
}

/** A tRPC call over HTTP: queries as GET ?input=, mutations as POST JSON. */
export function trpc(base: string, path: string, o: { input?: unknown; mutation?: boolean; headers?: Record<string, string>; localAddress?: string } = {}): Promise<HttpAnswer> {
  if (o.mutation) {
    return httpRequest(`${base}/trpc/${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...o.headers }, body: JSON.stringify(o.input ?? {}), localAddress: o.localAddress });
  }
  const q = o.input === undefined ? '' : `?input=${encodeURIComponent(JSON.stringify(o.input))}`;
  return httpRequest(`${base}/trpc/${path}${q}`, { headers: o.headers, localAddress: o.localAddress });
}

/** The `name=value` of the session cookie a response set (undefined when none). */
export function sessionCookieOf(a: HttpAnswer): string | undefined {
  const set = a.headers['set-cookie'];
  const list = Array.isArray(set) ? set : set ? [set] : [];
  return list.find((c) => c.startsWith('orrery_session='))?.split(';')[0];
}

/** Logs in with a password; the answer and the cookie to send afterwards. */
export async function passwordLogin(base: string, user: string, password: string, headers: Record<string, string> = {}): Promise<{ answer: HttpAnswer; cookie?: string }> {
  const answer = await trpc(base, 'auth.login', { mutation: true, input: { method: 'password', user, password }, headers });
  return { answer, cookie: sessionCookieOf(answer) };
}

export const errorCode = (a: HttpAnswer): string | undefined => a.json?.error?.data?.code;
