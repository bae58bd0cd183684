/**
 * Smoke test of `npm start`: runs `orrery up` as a real process on free ports with a temp data
 * dir and the default (memory, journaled) state driver, invokes every example through the
 * router, checks the two routers share their tables through Redis and the store lists the
 * resources, SIGKILLs a router and waits for the supervisor to bring it back, stops it, asserts
 * that no child survives, and restarts it to see the counter value, the registry's instances
 * and its members kept.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { connect as connectHttp2 } from 'node:http2';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import type { OrreryFunction, RegistryCluster } from '@orrery/spec';
import { createHttpStore } from '@orrery/store';
import { CLI, type OrreryUp, startOrreryUp } from '../testing/orrery-up-process.ts';
import { removeRedisKeys } from '../testing/redis-key-cleanup.ts';
import { until } from '../testing/until.ts';
import { pidAlive } from './pid-alive.ts';
import { type PlatformInfo, readPlatformInfo } from './platform-file.ts';

async function call(url: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { ...init, signal: AbortSignal.timeout(30_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** A WebSocket that has opened, with its first message; rejects when the handshake is refused. */
function webSocket(url: string): Promise<{ ws: WebSocket; echo(text: string): Promise<string> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { handshakeTimeout: 30_000 });
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => {
      res.resume();
      ws.terminate();
      reject(new Error(`handshake answered ${res.statusCode}`));
    });
    ws.once('open', () => resolve({ ws, echo: (text) => new Promise((r) => (ws.once('message', (d) => r((d as Buffer).toString())), ws.send(text))) }));
  });
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

/** The operator's last registry and etcd log lines, for a registry that did not come up. */
function registryLog(dataDir: string): string {
  try {
    const lines = readFileSync(join(dataDir, 'logs', '_platform', 'operator.log'), 'utf8').split('\n');
    return `operator log, registry and etcd lines:\n${lines.filter((l) => /registry|etcd/i.test(l)).slice(-40).join('\n')}`;
  } catch (e) {
    return `no operator log: ${(e as Error).message}`;
  }
}

async function livePids(info: PlatformInfo): Promise<number[]> {
  // The operator's worker list wants the store token, as every store call does (no loopback exception).
  const token = readFileSync(info.storeTokenFile!, 'utf8').trim();
  const { pids } = (await (await fetch(`${info.storeUrl}/v1/workers`, { headers: { authorization: `Bearer ${token}` } })).json()) as { pids: number[] };
  return [...Object.values(info.pids), ...pids];
}

/** The smoke test's own instance in the platform registry, on a lease that outlives a restart. */
const SMOKE_INSTANCE = { namespace: 'smoke', service: 'orrery.smoke.platform.up.api', instanceId: `smoke-${randomBytes(3).toString('hex')}` };

async function registryInstances(registryUrl: string, namespace: string): Promise<{ instanceId: string }[]> {
  const { body } = await call(`${registryUrl}/api/v1/registry/instances?namespace=${namespace}`);
  return (body.data as { instances: { instanceId: string }[] }).instances;
}

interface RouterStats {
  statesync?: { started: boolean; cycles: { ok: number }; syncables: { syncable: string; entitiesPulledTotal: number; entitiesPushedTotal: number }[] };
}

async function routerStats(adminUrl: string): Promise<RouterStats> {
  const { body } = await call(`${adminUrl}/v1/stats`);
  return body;
}

describe('orrery up (local platform smoke test)', () => {
  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  const ups: OrreryUp[] = [];
  const seenPids = new Set<number>();

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'orrery-up-'));
    env = { ...process.env };
  });

  afterAll(async () => {
    for (const up of ups) await up.stop();
    for (const pid of seenPids) if (pidAlive(pid)) process.kill(pid, 'SIGKILL');
    await removeRedisKeys(redisPrefix);
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  }, 120_000);

  const redisPrefix = `orrery-smoke-${randomBytes(4).toString('hex')}`;
  // The default state driver (memory): it journals to <data-dir>/state, so the counter survives.
  const flags = () => ['--redis-key-prefix', redisPrefix];
  const key = `smoke-${randomBytes(4).toString('hex')}`;
  let counterAfterFirstRun = 0;
  let registryMembersBefore: string[] = [];

  let firstUp: OrreryUp | undefined;

  it('starts everything, serves every example, shares the router tables through Redis, lists the resources', { timeout: 240_000 }, async () => {
    const up = startOrreryUp(dataDir, flags(), { env });
    ups.push(up);
    firstUp = up;
    const info = await up.ready(150_000);
    expect(info.routerUrls, `orrery up output:\n${up.output().slice(-3000)}`).toHaveLength(2);
    const router = info.routerUrls[0]!;
    expect(up.output()).toMatch(/✓ console ready at http/);
    // One registry: the examples' RegistryCluster, run by the operator; workers and routers use its API.
    expect(up.output(), registryLog(dataDir)).toMatch(/✓ registry ready at http/);
    expect(info.registryUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(up.output()).toMatch(/curl .*\/default\/counter\//);
    // The summary names the admin token's file (stdout is a pipe here, so never the token itself), and a curl for the registry and statesync examples.
    const token = readFileSync(join(dataDir, 'secrets', 'admin.token'), 'utf8').trim();
    expect(up.output()).not.toContain(token);
    expect(up.output()).toContain(`admin token   in ${join(dataDir, 'secrets', 'admin.token')}`);
    expect(up.output()).toContain(`curl '${info.registryUrl}/api/v1/registry/instances?namespace=default'`);
    expect(up.output()).toMatch(/curl http:\/\/127\.0\.0\.1:\d+\/v1\/stats .*statesync/);

    // counter: increments across calls (and across both router replicas)
    const first = await until(() => call(`${router}/default/counter/?key=${key}`, { method: 'POST' }), (r) => r.status === 200, 60_000, 'counter answers');
    const n = first.body.count as number;
    expect(n).toBe(1);
    const second = await call(`${info.routerUrls[1]}/default/counter/?key=${key}`, { method: 'POST' });
    expect(second.body.count).toBe(2);
    counterAfterFirstRun = 2;

    // counter ?watch: the keyspace's change feed, streamed by the function through the router as
    // Server-Sent Events. Its loop connects from "now", so increment until an event comes.
    const watchKey = `${key}-watch`;
    const stopWatch = new AbortController();
    const watch = await fetch(`${router}/default/counter/?key=${watchKey}&watch`, { signal: stopWatch.signal });
    expect(watch.headers.get('content-type')).toContain('text/event-stream');
    const reader = watch.body!.getReader();
    let pending = reader.read();
    let streamed = '';
    for (let i = 0; i < 20 && !streamed.includes('\n\n'); i++) {
      await call(`${router}/default/counter/?key=${watchKey}`, { method: 'POST' });
      const next = await Promise.race([pending, new Promise<undefined>((r) => setTimeout(r, 1000))]);
      if (next === undefined) continue;
      if (next.done) break;
      streamed += new TextDecoder().decode(next.value);
      pending = reader.read();
    }
    stopWatch.abort();
    pending.catch(() => undefined);
    expect(JSON.parse(streamed.split('\n\n')[0]!.replace(/^data: /, ''))).toMatchObject({ key: watchKey, op: 'set' });

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

    // ws-echo: a WebSocket through the router; its handshake wakes the revision from zero.
    const socket = await until(() => webSocket(`${router.replace(/^http/, 'ws')}/default/ws-echo/`), () => true, 60_000, 'ws-echo accepts a WebSocket');
    expect(await socket.echo('hello over a socket')).toBe('hello over a socket');
    socket.ws.close();

    // grpc-echo: one unary gRPC call over h2c (prior knowledge) through the router, trailers included.
    const grpc = await until(() => grpcUnary(router, '/default/grpc-echo/echo.Echo/Say', { text: 'hello over gRPC' }), (r) => r.grpcStatus === '0', 60_000, 'grpc-echo answers a unary call');
    expect(grpc.message, JSON.stringify(grpc)).toEqual({ text: 'hello over gRPC', from: 'up-smoke' });

    // canary: wait until both revisions serve, then ~90/10 over 200 requests; tags pin a revision
    const store = createHttpStore(info.storeUrl, { token: readFileSync(info.storeTokenFile!, 'utf8').trim() });
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

    // The two routers share their tables through Redis: router-1 admitted every cart session
    // (sticky owners), pushed them to Redis, and router-2 — which served no sticky request —
    // pulled them from there.
    const [admin1, admin2] = ['router-1', 'router-2'].map((n) => info.components.find((c) => c.name === n)?.adminUrl);
    expect(admin1 && admin2).toBeTruthy();
    const sticky = (st: RouterStats) => st.statesync?.syncables.find((x) => /sticky/.test(x.syncable));
    await until(() => routerStats(admin1!), (st) => (sticky(st)?.entitiesPushedTotal ?? 0) > 0, 40_000, 'router-1 pushed its sticky owners to Redis');
    await until(() => routerStats(admin2!), (st) => (sticky(st)?.entitiesPulledTotal ?? 0) > 0, 40_000, 'router-2 pulled sticky owners from Redis');
    const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      expect((await redis.keys(`${redisPrefix}*sticky*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
    for (const a of [admin1!, admin2!]) expect((await routerStats(a)).statesync?.cycles.ok, a).toBeGreaterThan(0);

    // The registry cluster keeps its data: an instance on a one-hour lease, and the member ids.
    // Write tokens are on in `orrery up`: the platform's write token registers services outside orrery.functions.
    const writeToken = readFileSync(join(dataDir, 'secrets', 'registry-write.token'), 'utf8').trim();
    const reg = await call(`${info.registryUrl}/api/v1/registry/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${writeToken}` },
      body: JSON.stringify({ ...SMOKE_INSTANCE, leaseTtlSeconds: 3600, endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port: 1 }] }),
    });
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    expect((await registryInstances(info.registryUrl!, 'smoke')).map((i) => i.instanceId)).toEqual([SMOKE_INSTANCE.instanceId]);

    // orrery status: every running component healthy (with pid and memory), the resources listed
    const status = spawn(process.execPath, [CLI, 'status', '--data-dir', dataDir, '--json'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let statusOut = '';
    status.stdout.on('data', (c: Buffer) => (statusOut += c.toString()));
    const statusCode = await new Promise<number | null>((r) => status.once('exit', r));
    const report = JSON.parse(statusOut) as {
      components: { name: string; state: string; pid?: number; rssBytes?: number }[];
      functions: { name: string; ready: string }[];
      revisions: { name: string; ready: string }[];
      environments: { name: string; ready: string }[];
      registryClusters: { name: string; available: string; leader: string; voters: number; members: { id: string }[] }[];
      stateSyncs: { name: string; ready: string }[];
    };
    expect(statusCode, statusOut).toBe(0);
    expect(report.components.find((c) => c.name === 'operator')?.state).toBe('Ready');
    expect(report.components.find((c) => c.name === 'operator')?.rssBytes).toBeGreaterThan(0);
    expect(report.components.find((c) => c.name === 'console')?.state).toBe('Ready');
    expect(report.functions.find((f) => f.name === 'counter')?.ready).toBe('True');
    expect(report.revisions.map((r) => r.name)).toEqual(expect.arrayContaining(['counter-00001', 'canary-00002']));
    expect(report.environments.map((e) => e.name)).toContain('nodejs');
    const registry = report.registryClusters.find((c) => c.name === 'registry');
    expect(registry).toMatchObject({ available: 'True', voters: 3 });
    expect(registry!.leader).not.toBe('-');
    expect(report.stateSyncs.map((x) => x.name)).toContain('router');
    const store2 = createHttpStore(info.storeUrl, { token: readFileSync(info.storeTokenFile!, 'utf8').trim() });
    try {
      registryMembersBefore = ((await store2.get('RegistryCluster', 'default', 'registry')) as RegistryCluster).status!.members!.map((m) => m.id).sort();
      expect(registryMembersBefore).toHaveLength(3);
    } finally {
      await store2.close();
    }

    // The console serves its pages, and the admin API answers through its /trpc route with the admin token.
    expect(info.consoleUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${info.consoleUrl}/login`)).status).toBe(200);
    const fns = await fetch(`${info.consoleUrl}/trpc/functions.list?input=${encodeURIComponent('{}')}`, { headers: { authorization: `Bearer ${token}` } });
    expect(fns.status).toBe(200);
    expect(JSON.stringify(await fns.json())).toContain('"counter"');
    expect((await fetch(`${info.consoleUrl}/trpc/functions.list?input=${encodeURIComponent('{}')}`)).status).toBe(401);
  });

  it('restarts a router killed with SIGKILL and records its new pid', { timeout: 120_000 }, async () => {
    const up = firstUp!;
    const before = readPlatformInfo(dataDir)!;
    const oldPid = before.pids['router-2']!;
    expect(pidAlive(oldPid)).toBe(true);
    seenPids.add(oldPid);
    process.kill(oldPid, 'SIGKILL');
    await until(() => up.output(), (o) => o.includes('restarting router-2 (SIGKILL, attempt 1)'), 10_000, 'the supervisor says it restarts router-2');
    const after = await until(() => readPlatformInfo(dataDir)!, (i) => i.pids['router-2'] !== undefined && i.pids['router-2'] !== oldPid, 60_000, 'a new router-2 pid in platform.json');
    const newPid = after.pids['router-2']!;
    seenPids.add(newPid);
    expect(pidAlive(newPid)).toBe(true);
    expect(after.components.find((c) => c.name === 'router-2')).toMatchObject({ state: 'ready', pid: newPid });
    // It answers again on the same address and the counter goes on where it was.
    const r = await until(() => call(`${before.routerUrls[1]}/default/counter/?key=${key}`, { method: 'POST' }), (x) => x.status === 200, 60_000, 'router-2 answers again');
    expect(r.body.count).toBe(3);
    counterAfterFirstRun = 3;
  });

  it('Ctrl-C stops every child (the restarted one included) and every worker', { timeout: 120_000 }, async () => {
    const up = firstUp!;
    const info = readPlatformInfo(dataDir)!;
    const pids = await livePids(info);
    pids.forEach((p) => seenPids.add(p));
    expect(pids.length).toBeGreaterThanOrEqual(6); // supervisor, operator, statesvc, 2 routers, console (+ workers; etcd is checked below by data dir)
    expect(processesUsing(dataDir).filter((p) => /etcd --name /.test(p)).length).toBeGreaterThanOrEqual(3);
    expect(pids).toContain(info.pids['router-2']); // the restarted router's pid
    up.child.kill('SIGINT');
    expect(await up.exit).toBe(0);
    // Children exiting during the shutdown are not restarted.
    expect(up.output().split('SIGINT, stopping every component')[1]).not.toMatch(/restarting|exited unexpectedly/);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
    expect(readPlatformInfo(dataDir)).toBeUndefined();
  });

  it('a second `orrery up` reuses the data: functions, revisions, the counter value (memory driver), registry instances and members; `orrery down` stops it', { timeout: 200_000 }, async () => {
    expect(counterAfterFirstRun).toBe(3);
    const up = startOrreryUp(dataDir, flags(), { env });
    ups.push(up);
    const info = await up.ready(150_000);
    const router = info.routerUrls[0]!;
    const read = await until(() => call(`${router}/default/counter/?key=${key}`), (r) => r.status === 200, 60_000, 'counter answers after restart');
    expect(read.body.count, `GET after restart answered ${JSON.stringify(read.body)}`).toBe(counterAfterFirstRun);
    expect((await call(`${router}/default/counter/?key=${key}`, { method: 'POST' })).body.count).toBe(counterAfterFirstRun + 1);
    // nothing was re-created: still exactly the two canary revisions
    const store = createHttpStore(info.storeUrl, { token: readFileSync(info.storeTokenFile!, 'utf8').trim() });
    try {
      const canaryRevs = (await store.list('Revision')).items.filter((r) => r.metadata.name.startsWith('canary-')).map((r) => r.metadata.name);
      expect(canaryRevs.sort()).toEqual(['canary-00001', 'canary-00002']);
      // The registry cluster came back from its data: the same members, and the instance on its lease.
      const rc = (await store.get('RegistryCluster', 'default', 'registry')) as RegistryCluster;
      expect(rc.status!.members!.map((m) => m.id).sort()).toEqual(registryMembersBefore);
      expect((await registryInstances(info.registryUrl!, 'smoke')).map((i) => i.instanceId)).toEqual([SMOKE_INSTANCE.instanceId]);
    } finally {
      await store.close();
    }

    const pids = await livePids(info);
    pids.forEach((p) => seenPids.add(p));
    const down = spawn(process.execPath, [CLI, 'down', '--data-dir', dataDir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let downOutput = '';
    down.stdout.on('data', (d: Buffer) => (downOutput += d.toString()));
    down.stderr.on('data', (d: Buffer) => (downOutput += d.toString()));
    const downCode = await new Promise((r) => down.once('exit', r));
    expect(downCode, `orrery down output:\n${downOutput}\norrery up output:\n${up.output().slice(-2000)}`).toBe(0);
    expect(await up.exit).toBe(0);
    expect(pids.filter(pidAlive)).toEqual([]);
    expect(processesUsing(dataDir)).toEqual([]);
  });
});

/**
 * One unary gRPC call over h2c with node:http2 (no gRPC library): a JSON message in the 5-byte
 * gRPC frame; answers the decoded reply and the grpc-status trailer (or the header of a
 * trailers-only answer).
 */
async function grpcUnary(base: string, path: string, message: unknown): Promise<{ grpcStatus?: string; grpcMessage?: string; message?: unknown }> {
  const session = connectHttp2(base);
  try {
    return await new Promise((resolve, reject) => {
      session.once('error', reject);
      const payload = Buffer.from(JSON.stringify(message));
      const frame = Buffer.alloc(5 + payload.length);
      frame.writeUInt32BE(payload.length, 1);
      payload.copy(frame, 5);
      const stream = session.request({ ':method': 'POST', ':path': path, 'content-type': 'application/grpc', te: 'trailers', 'x-caller': 'up-smoke' });
      stream.setTimeout(20_000, () => stream.close());
      const chunks: Buffer[] = [];
      let status: string | undefined;
      let statusMessage: string | undefined;
      stream.on('response', (h) => {
        status = h['grpc-status'] as string | undefined;
        statusMessage = h['grpc-message'] as string | undefined;
      });
      stream.on('trailers', (t) => {
        status = t['grpc-status'] as string | undefined;
        statusMessage = t['grpc-message'] as string | undefined;
      });
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('error', reject);
      stream.on('close', () => {
        const body = Buffer.concat(chunks);
        const reply = body.length >= 5 ? (JSON.parse(body.subarray(5, 5 + body.readUInt32BE(1)).toString()) as unknown) : undefined;
        resolve({ grpcStatus: status, grpcMessage: statusMessage, message: reply });
      });
      stream.end(frame);
    });
  } finally {
    session.close();
  }
}
