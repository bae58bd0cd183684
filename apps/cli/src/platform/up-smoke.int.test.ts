/**
 * Smoke test of `npm start`: runs `orrery up` as a real process on free ports with a temp data
 * dir, invokes every example through the router, checks the store lists the resources, stops
 * it, asserts that no child survives, and restarts it to see the counter kept its value.
 * State uses the postgres driver on an isolated database: the memory driver forgets on restart.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase } from '@orrery/db';
import type { OrreryFunction } from '@orrery/spec';
import { createHttpStore } from '@orrery/store';
import { pidAlive } from './pid-alive.ts';
import { type PlatformInfo, readPlatformInfo } from './platform-file.ts';

const CLI = join(import.meta.dirname, '..', '..', 'bin', 'orrery.mjs');

interface Up {
  child: ChildProcess;
  output(): string;
  exit: Promise<number | null>;
}

function startUp(dataDir: string, env: NodeJS.ProcessEnv, extra: string[] = []): Up {
  const child = spawn(process.execPath, [CLI, 'up', '--port-base', '0', '--data-dir', dataDir, ...extra], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  return { child, output: () => out, exit };
}

async function until<T>(read: () => Promise<T> | T, ok: (v: T) => boolean, timeoutMs: number, what: string): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await read();
      if (ok(v)) return v;
      last = v;
    } catch (err) {
      last = (err as Error).message;
    }
    if (Date.now() > end) throw new Error(`${what} not met within ${timeoutMs} ms; last: ${JSON.stringify(last)?.slice(0, 500)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function waitReady(up: Up, dataDir: string): Promise<PlatformInfo> {
  await until(
    () => {
      if (up.child.exitCode !== null) throw new Error(`orrery up exited ${up.child.exitCode}:\n${up.output()}`);
      return up.output();
    },
    (o) => o.includes('orrery up: ready'),
    150_000,
    'orrery up ready',
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n--- output:\n${up.output()}`);
  });
  return readPlatformInfo(dataDir)!;
}

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Every live process whose command line names the data dir: catches anything pids missed. */
function processesUsing(dataDir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      if (cmd.includes(dataDir) && pidAlive(Number(entry))) found.push(`${entry} ${cmd.slice(0, 160)}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

async function livePids(info: PlatformInfo): Promise<number[]> {
  const { pids } = (await (await fetch(`${info.storeUrl}/v1/workers`)).json()) as { pids: number[] };
  return [...Object.values(info.pids), ...pids];
}

describe('orrery up (local platform smoke test)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const ups: Up[] = [];
  const seenPids = new Set<number>();

  beforeAll(async () => {
    db = await createTestDatabase('orrery_smoke');
    dataDir = mkdtempSync(join(tmpdir(), 'orrery-up-'));
    env = { ...process.env, DATABASE_URL: db.url };
  });

  afterAll(async () => {
    for (const up of ups) {
      if (up.child.exitCode === null && up.child.signalCode === null) {
        up.child.kill('SIGTERM');
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([up.exit, new Promise((r) => (timer = setTimeout(r, 60_000)))]);
        clearTimeout(timer);
        up.child.kill('SIGKILL');
      }
    }
    for (const pid of seenPids) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await db?.drop();
    // The routers' shared tables expire on their own; remove them now anyway.
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      for (const k of await redis.keys(`${redisPrefix}*`)) await redis.del(k);
    } catch {
      // no Redis: nothing was written
    } finally {
      redis.disconnect();
    }
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const redisPrefix = `orrery-smoke-${randomBytes(4).toString('hex')}`;
  const flags = () => ['--state-driver', 'postgres', '--redis-key-prefix', redisPrefix];
  const key = `smoke-${randomBytes(4).toString('hex')}`;
  let counterAfterFirstRun = 0;

  it('starts everything, serves every example, lists the resources, and stops leaving nothing behind', { timeout: 240_000 }, async () => {
    const up = startUp(dataDir, env, flags());
    ups.push(up);
    const info = await waitReady(up, dataDir);
    expect(info.routerUrls).toHaveLength(2);
    const router = info.routerUrls[0]!;
    expect(up.output()).toMatch(/✓ console ready at http/);
    // One registry: the examples' RegistryCluster, run by the operator; workers and routers use its API.
    expect(up.output()).toMatch(/✓ registry ready at http/);
    expect(info.registryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.output()).toMatch(/curl .*\/default\/counter\//);

    // counter: increments across calls (and across both router replicas)
    const first = await until(() => call(`${router}/default/counter/?key=${key}`, { method: 'POST' }), (r) => r.status === 200, 60_000, 'counter answers');
    const n = first.body.count as number;
    expect(n).toBe(1);
    const second = await call(`${info.routerUrls[1]}/default/counter/?key=${key}`, { method: 'POST' });
    expect(second.body.count).toBe(2);
    counterAfterFirstRun = 2;

    // cart: one worker per session, and the cart accumulates
    await until(() => call(`${router}/default/cart/`, { headers: { 'x-session-id': 'warmup' } }), (r) => r.status === 200, 60_000, 'cart answers');
    for (const session of ['alice', 'bob', 'carol']) {
      const workers = new Set<string>();
      let last: Record<string, unknown> = {};
      for (let i = 0; i < 4; i++) {
        const r = await call(`${router}/default/cart/`, {
          method: 'POST',
          headers: { 'x-session-id': session, 'content-type': 'application/json' },
          body: JSON.stringify({ item: 'apple', qty: 1 }),
        });
        expect(r.status).toBe(200);
        const w = r.body.worker as { pid: number; port: number };
        workers.add(`${w.pid}:${w.port}`);
        last = r.body;
      }
      expect(workers.size, `session ${session} moved between workers: ${[...workers].join(', ')}`).toBe(1);
      expect((last.cart as { items: Record<string, number> }).items.apple).toBe(4);
    }

    // canary: wait until both revisions serve, then ~90/10 over 200 requests; tags pin a revision
    const store = createHttpStore(info.storeUrl);
    try {
      await until(
        () => store.get('Function', 'default', 'canary') as Promise<OrreryFunction>,
        (f) => f?.status?.conditions?.find((c) => c.type === 'Ready')?.status === 'True' && (f.status.traffic ?? []).some((t) => t.revisionName === 'canary-00002'),
        90_000,
        'canary Ready with canary-00002 as latest',
      );
      await until(() => call(`${router}/default/canary/`, { headers: { 'orrery-tag': 'canary' } }), (r) => r.body.version === 'v2', 60_000, 'canary tag reaches v2');
      await until(() => call(`${router}/default/canary/`, { headers: { 'orrery-tag': 'stable' } }), (r) => r.body.version === 'v1', 60_000, 'stable tag reaches v1');
      const counts = { v1: 0, v2: 0 };
      for (let i = 0; i < 200; i++) {
        const r = await call(`${router}/default/canary/`);
        counts[r.body.version as 'v1' | 'v2']++;
      }
      expect(counts.v1 + counts.v2).toBe(200);
      expect(counts.v2, JSON.stringify(counts)).toBeGreaterThanOrEqual(5);
      expect(counts.v2, JSON.stringify(counts)).toBeLessThanOrEqual(45);

      // the store API lists what the examples declared
      const fns = (await store.list('Function')).items.map((f) => f.metadata.name).sort();
      expect(fns).toEqual(expect.arrayContaining(['canary', 'cart', 'counter']));
      const revs = (await store.list('Revision')).items.map((r) => r.metadata.name);
      expect(revs).toEqual(expect.arrayContaining(['canary-00001', 'canary-00002', 'cart-00001', 'counter-00001']));
      expect((await store.list('Environment')).items.map((e) => e.metadata.name)).toContain('nodejs');
    } finally {
      await store.close();
    }

    // orrery status: every running component healthy, the functions listed
    const status = spawn(process.execPath, [CLI, 'status', '--data-dir', dataDir, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let statusOut = '';
    status.stdout.on('data', (c: Buffer) => (statusOut += c.toString()));
    const statusCode = await new Promise<number | null>((r) => status.once('exit', r));
    const report = JSON.parse(statusOut) as { components: { name: string; state: string }[]; functions: { name: string; ready: string }[] };
    expect(statusCode, statusOut).toBe(0);
    expect(report.components.find((c) => c.name === 'operator')?.state).toBe('Ready');
    expect(report.components.find((c) => c.name === 'console')?.state).toBe('Ready');
    expect(report.functions.find((f) => f.name === 'counter')?.ready).toBe('True');

    // The console serves its pages, and the admin API answers through its /trpc route with the admin token.
    expect(info.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${info.consoleUrl}/login`)).status).toBe(200);
    const token = readFileSync(join(dataDir, 'secrets', 'admin.token'), 'utf8').trim();
    const fns = await fetch(`${info.consoleUrl}/trpc/functions.list?input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${token}` } });
    expect(fns.status).toBe(200);
    expect(JSON.stringify(await fns.json())).toContain('"counter"');
    expect((await fetch(`${info.consoleUrl}/trpc/functions.list?input=${encodeURIComponent('{}')}`)).status).toBe(401);

    // Ctrl-C: every child and every worker is gone afterwards
    const pids = await livePids(info);
    pids.forEach((p) => seenPids.add(p));
    expect(pids.length).toBeGreaterThanOrEqual(6); // supervisor, operator, statesvc, 2 routers, console (+ workers; etcd is checked below by data dir)
    expect(processesUsing(dataDir).filter((p) => /etcd --name /.test(p)).length).toBeGreaterThanOrEqual(3);
    up.child.kill('SIGINT');
    expect(await up.exit).toBe(0);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
    expect(readPlatformInfo(dataDir)).toBeUndefined();
  });

  it('a second `orrery up` reuses the data: functions, revisions and the counter value; `orrery down` stops it', { timeout: 200_000 }, async () => {
    expect(counterAfterFirstRun).toBe(2);
    const up = startUp(dataDir, env, flags());
    ups.push(up);
    const info = await waitReady(up, dataDir);
    const router = info.routerUrls[0]!;
    const read = await until(() => call(`${router}/default/counter/?key=${key}`), (r) => r.status === 200, 60_000, 'counter answers after restart');
    expect(read.body.count, `GET after restart answered ${JSON.stringify(read.body)}`).toBe(counterAfterFirstRun);
    expect((await call(`${router}/default/counter/?key=${key}`, { method: 'POST' })).body.count).toBe(counterAfterFirstRun + 1);
    // nothing was re-created: still exactly the two canary revisions
    const store = createHttpStore(info.storeUrl);
    try {
      const canaryRevs = (await store.list('Revision')).items.filter((r) => r.metadata.name.startsWith('canary-')).map((r) => r.metadata.name);
      expect(canaryRevs.sort()).toEqual(['canary-00001', 'canary-00002']);
    } finally {
      await store.close();
    }

    const pids = await livePids(info);
    pids.forEach((p) => seenPids.add(p));
    const down = spawn(process.execPath, [CLI, 'down', '--data-dir', dataDir], { stdio: 'ignore' });
    expect(await new Promise((r) => down.once('exit', r))).toBe(0);
    expect(await up.exit).toBe(0);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});
