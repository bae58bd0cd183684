/**
 * Issue 20 item 5 on the local platform: `orrery up` on Postgres and a password-protected Redis,
 * both given the way the help says (DATABASE_URL, ORRERY_REDIS_URL). No process of the platform —
 * the supervisor, its children and what they start (etcd members, the registry) — carries either
 * password in /proc/<pid>/cmdline (readable by every local user, shown by `ps`), nor do the
 * summary and platform.json. Before, statesvc got --database-url and the routers --redis-url.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@orrery/etcdcluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '../../../../packages/db/src/test-database.ts';
import { type OrreryUp, startOrreryUp } from '../testing/orrery-up-process.ts';
import { descendants } from '../testing/process-tree.ts';
import { findBinary } from './find-binary.ts';
import { readCmdline } from './processes.ts';
const PG_PASSWORD = 'pg-pass-9c1e7d2b';
const REDIS_PASSWORD = 'redis-pass-4f0a6e3c';
const dataDir = mkdtempSync(join(tmpdir(), 'orrery-up-cmdline-'));
let up: OrreryUp;
let redis: ChildProcess | undefined;
let db: Awaited<ReturnType<typeof createTestDatabase>> | undefined;

beforeAll(async () => {
  db = await createTestDatabase('orrery_cmdline');
  const pgUrl = new URL(db.url);
  pgUrl.password = PG_PASSWORD; // the test server trusts local connections: any password works
  const redisPort = await freePort();
  redis = spawn(findBinary('redis-server')!, ['--port', String(redisPort), '--bind', '127.0.0.1', '--requirepass', REDIS_PASSWORD, '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const env = { ...process.env, DATABASE_URL: pgUrl.toString(), ORRERY_REDIS_URL: `redis://:${REDIS_PASSWORD}@127.0.0.1:${redisPort}` };
  up = startOrreryUp(dataDir, ['--no-console', '--no-examples', '--state-driver', 'postgres'], { env });
  await up.ready(170_000);
}, 200_000);

afterAll(async () => {
  await up?.stop();
  redis?.kill('SIGKILL');
  await db?.drop().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
}, 90_000);

describe('orrery up keeps credentials off command lines', () => {
  it('statesvc runs on Postgres and the routers share Redis (so both URLs were used)', () => {
    expect(up.output()).toMatch(/✓ statesvc ready/);
    expect(up.output()).toMatch(/✓ redis ready at redis:\/\/:\*\*\*@127\.0\.0\.1:\d+/);
  });

  it('no process of the platform has a password in /proc/<pid>/cmdline', () => {
    const pids = descendants(up.child.pid!);
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
    for (const text of [up.output(), platform]) {
      expect(text).not.toContain(PG_PASSWORD);
      expect(text).not.toContain(REDIS_PASSWORD);
    }
  });
});
