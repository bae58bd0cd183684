/**
 * Issue 20 item 5 on the local platform: `orrery up` on Postgres and a password-protected Redis,
 * both given the way the help says (DATABASE_URL, ORRERY_REDIS_URL). No process of the platform —
 * the supervisor, its children and what they start (etcd members, the registry) — carries either
 * password in /proc/<pid>/cmdline (readable by every local user, shown by `ps`), nor do the
 * summary and platform.json. Before, statesvc got --database-url and the routers --redis-url.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../packages/db/src/test-database.ts';
import { findBinary } from './find-binary.ts';
import { readCmdline, statFields } from './processes.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');
const PG_PASSWORD = 'pg-pass-9c1e7d2b';
const REDIS_PASSWORD = 'redis-pass-4f0a6e3c';
const dataDir = mkdtempSync(join(tmpdir(), 'orrery-up-cmdline-'));
let child: ChildProcess;
let redis: ChildProcess | undefined;
let output = '';
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });

/** The supervisor and every process below it (children, grandchildren: etcd, the registry, workers). */
function descendants(root: number): number[] {
  const parent = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    const f = statFields(Number(e));
    if (f) parent.set(Number(e), Number(f[1]));
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

beforeAll(async () => {
  db = await createTestDatabase('orrery_cmdline');
  const pgUrl = new URL(db.url);
  pgUrl.password = PG_PASSWORD; // the test server trusts local connections: any password works
  const redisPort = await freePort();
  redis = spawn(findBinary('redis-server')!, ['--port', String(redisPort), '--bind', '127.0.0.1', '--requirepass', REDIS_PASSWORD, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const env = { ...process.env, DATABASE_URL: pgUrl.toString(), ORRERY_REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}` };
  child = spawn(process.execPath, [CLI, 'up', '--port-base', '0', '--data-dir', dataDir, '--no-console', '--no-examples', '--state-driver', 'postgres'], { stdio: ['ignore', 'pipe', 'pipe'], env });
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const end = Date.now() + 170_000;
  while (!output.includes('orrery up: ready')) {
    if (child.exitCode !== null) throw new Error(`orrery up exited ${child.exitCode}:\n${output}`);
    if (Date.now() > end) throw new Error(`orrery up not ready in 170 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}, 200_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const gone = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), 60_000);
    await gone;
    clearTimeout(t);
  }
  redis?.kill('SIGKILL');
  await db?.drop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

describe('orrery up keeps credentials off command lines', () => {
  it('statesvc runs on Postgres and the routers share Redis (so both URLs were used)', () => {
    expect(output).toMatch(/✓ statesvc ready/);
    expect(output).toMatch(/✓ redis ready at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
  });

  it('no process of the platform has a password in /proc/<pid>/cmdline', () => {
    const pids = descendants(child.pid!);
    expect(pids.length).toBeGreaterThanOrEqual(6); // supervisor, operator, statesvc, 2 routers, registry/etcd
    const cmdlines = pids.map((pid) => ({ pid, cmdline: readCmdline(pid) ?? '' }));
    expect(cmdlines.some((c) => c.cmdline.includes('orrery-statesvc'))).toBe(true);
    expect(cmdlines.some((c) => c.cmdline.includes('orrery-router'))).toBe(true);
    for (const { pid, cmdline } of cmdlines) {
      expect(cmdline, `pid ${pid}: ${cmdline}`).not.toContain(PG_PASSWORD);
      expect(cmdline, `pid ${pid}: ${cmdline}`).not.toContain(REDIS_PASSWORD);
    }
  });

  it('nor the summary, nor platform.json', () => {
    const platform = readFileSync(join(dataDir, 'platform.json'), 'utf8');
    for (const text of [output, platform]) {
      expect(text).not.toContain(PG_PASSWORD);
      expect(text).not.toContain(REDIS_PASSWORD);
    }
  });
});
