/**
 * Teleport counting measured through real `orrery-router` processes (issue 21 item 10): with 4
 * stable workers, 2 000 keys and 20 000 sticky requests almost nothing may count as a teleport;
 * removing one worker counts each key it owned once (on whichever replica moved it first, never
 * again on the other: the owner table is shared through a real Redis, random key prefix).
 * The worker that receives a moved key is told so by `X-Orrery-Key-Moved: 1` on exactly those
 * requests (its SDK claims a fence); the same header sent by a client never reaches a worker.
 */
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { Pool, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';

const KEYS = 2_000;
const REQUESTS = 20_000;
const CONNECTIONS = 16;
const STICKY = '{source: header, name: x-session}';

const g = new ProcessGroup();
const prefix = `orrery-teleport-test-${randomBytes(4).toString('hex')}`;
const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
const workers: Array<{ name: string; address: string }> = [];
const keys = Array.from({ length: KEYS }, (_, i) => `session-${i}`);

interface Replica {
  url: string;
  admin: string;
  pool: Pool;
}
const pools: Pool[] = [];

async function replica(name: string, extra: string[] = []): Promise<Replica> {
  const routes = g.write(`routes-${name}.yaml`, functionYaml({ name: 'cart', revisions: ['cart-00001'], sticky: STICKY }));
  const r = await g.router(['--routes-file', routes, '--endpoints-file', g.write(`endpoints-${name}.yaml`, endpointsFor(workers)), '--router-id', name, ...extra]);
  const pool = new Pool(r.url, { connections: CONNECTIONS });
  pools.push(pool);
  await eventually(async () => ((await stats(r.admin)).endpoints.length === workers.length ? true : undefined), `${name} loads its endpoints`);
  return { url: r.url, admin: r.admin, pool };
}

function endpointsFor(list: Array<{ address: string }>): string {
  return endpointsYaml(list.map((w) => ({ fn: 'cart', rev: 'cart-00001', address: w.address })));
}

async function setWorkers(name: string, r: Replica, list: Array<{ address: string }>): Promise<void> {
  g.write(`endpoints-${name}.yaml`, endpointsFor(list));
  await eventually(async () => ((await stats(r.admin)).endpoints.length === list.length ? true : undefined), `${name} reloads its endpoints`);
}

const stats = async (admin: string): Promise<RouterStatsJson> => (await (await request(`${admin}/v1/stats`)).body.json()) as RouterStatsJson;

async function cart(admin: string): Promise<{ teleports: number; stickyRequests: number }> {
  const f = (await stats(admin)).functions.find((x) => x.function === 'cart');
  return { teleports: f?.teleports ?? 0, stickyRequests: f?.stickyRequests ?? 0 };
}

/** Requests whose worker saw `X-Orrery-Key-Moved: 1`, over the whole file. */
let keyMovedSeen = 0;

/**
 * Sends each key of `sequence` (in order, CONNECTIONS at a time) and records which worker
 * answered it. Every request also carries a forged `X-Orrery-Key-Moved: 1`, which the router
 * must drop: a worker sees the header only when the router sets it.
 */
async function send(r: Replica, sequence: readonly string[], owners: Map<string, Set<string>>): Promise<void> {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < sequence.length) {
      const key = sequence[next++]!;
      const res = await r.pool.request({ path: '/default/cart/', method: 'GET', headers: { 'x-session': key, 'x-orrery-key-moved': '1' } });
      const seen = ((await res.body.json()) as { rawHeaders: string[] }).rawHeaders;
      const moved = seen.filter((h, i) => i % 2 === 0 && h.toLowerCase() === 'x-orrery-key-moved');
      expect(moved.length).toBeLessThanOrEqual(1);
      keyMovedSeen += moved.length;
      expect(res.statusCode).toBe(200);
      const worker = res.headers['x-upstream'] as string;
      let set = owners.get(key);
      if (!set) owners.set(key, (set = new Set()));
      set.add(worker);
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, lane));
}

/** A deterministic pseudo-random sequence of `n` keys (xorshift32), so every run measures the same load. */
function randomKeys(n: number, seed: number): string[] {
  let x = seed >>> 0 || 1;
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.push(keys[x % KEYS]!);
  }
  return out;
}

/** Waits until both replicas have finished `cycles` more successful statesync cycles. */
async function syncCycles(replicas: Replica[], cycles: number): Promise<void> {
  const count = async (r: Replica): Promise<number> => ((await stats(r.admin)).statesync as { cycles?: { ok: number } } | undefined)?.cycles?.ok ?? 0;
  const start = await Promise.all(replicas.map(count));
  await eventually(async () => ((await Promise.all(replicas.map(count))).every((n, i) => n >= start[i]! + cycles) ? true : undefined), `${cycles} statesync cycles`);
}

beforeAll(async () => {
  await redis.connect();
  for (const name of ['w0', 'w1', 'w2', 'w3']) workers.push({ name, address: (await g.upstream(name)).address });
}, 60_000);

afterAll(async () => {
  await Promise.all(pools.map((p) => p.close()));
  await g.stopAll();
  const stored = await redis.keys(`${prefix}*`);
  if (stored.length > 0) await redis.del(...stored);
  redis.disconnect();
});

describe('sticky teleports are counted per key', () => {
  it('one replica: 4 stable workers, 2 000 keys, 20 000 requests → ≤ 1 % teleports; a removed worker → one teleport per key it owned, none on a second pass', { timeout: 180_000 }, async () => {
    const r = await replica('solo');
    const owners = new Map<string, Set<string>>();
    const movedBefore = keyMovedSeen;
    await send(r, randomKeys(REQUESTS, 42), owners);
    const stable = await cart(r.admin);
    // The worker is told exactly when the router counts a teleport, never because a client said so.
    expect(keyMovedSeen - movedBefore).toBe(stable.teleports);
    expect(stable.stickyRequests).toBe(REQUESTS);
    // Every key stayed on one worker (HRW), so every teleport counted here is noise.
    expect([...owners.values()].every((s) => s.size === 1)).toBe(true);
    console.log(`stable: ${stable.teleports} teleports / ${stable.stickyRequests} sticky requests (${((100 * stable.teleports) / stable.stickyRequests).toFixed(2)} %)`);
    expect(stable.teleports).toBeLessThanOrEqual(0.01 * stable.stickyRequests);

    const removed = workers[0]!;
    const owned = [...owners].filter(([, s]) => s.has(removed.name)).length;
    await setWorkers('solo', r, workers.slice(1));
    const after = new Map<string, Set<string>>();
    await send(r, keys, after);
    const moved = (await cart(r.admin)).teleports - stable.teleports;
    console.log(`${removed.name} removed: ${moved} teleports for the ${owned} keys it owned`);
    expect(keyMovedSeen - movedBefore - stable.teleports).toBe(moved);
    expect(moved).toBeGreaterThanOrEqual(0.8 * owned);
    expect(moved).toBeLessThanOrEqual(1.2 * owned);
    expect([...after.values()].every((s) => !s.has(removed.name))).toBe(true);

    await send(r, keys, after);
    expect((await cart(r.admin)).teleports - stable.teleports).toBe(moved); // the second pass moves nothing
    expect(keyMovedSeen - movedBefore - stable.teleports).toBe(moved);
  });

  it('two replicas sharing the owner table through Redis: a key moved on A counts once, not again on B', { timeout: 180_000 }, async () => {
    const sync = ['--redis-url', 'redis://127.0.0.1:6379', '--redis-key-prefix', prefix, '--sync-period-ms', '200'];
    const [a, b] = await Promise.all([replica('a', sync), replica('b', sync)]);
    // Stable workers, requests spread over both replicas.
    const owners = new Map<string, Set<string>>();
    const load = randomKeys(REQUESTS, 7);
    await Promise.all([send(a, load.slice(0, REQUESTS / 2), owners), send(b, load.slice(REQUESTS / 2), owners)]);
    const [sa, sb] = [await cart(a.admin), await cart(b.admin)];
    const sticky = sa.stickyRequests + sb.stickyRequests;
    console.log(`two replicas, stable: ${sa.teleports + sb.teleports} teleports / ${sticky} sticky requests`);
    expect(sticky).toBe(REQUESTS);
    expect(sa.teleports + sb.teleports).toBeLessThanOrEqual(0.01 * sticky);
    await syncCycles([a, b], 2);

    // A worker leaves; A serves every key first and counts the moves.
    const removed = workers[1]!;
    const owned = [...owners].filter(([, s]) => s.has(removed.name)).length;
    await Promise.all([setWorkers('a', a, workers.filter((w) => w !== removed)), setWorkers('b', b, workers.filter((w) => w !== removed))]);
    const headersBefore = keyMovedSeen;
    await send(a, keys, new Map());
    const movedOnA = (await cart(a.admin)).teleports - sa.teleports;
    expect(keyMovedSeen - headersBefore).toBe(movedOnA);
    console.log(`two replicas, ${removed.name} removed: ${movedOnA} teleports on A for the ${owned} keys it owned`);
    expect(movedOnA).toBeGreaterThanOrEqual(0.8 * owned);
    expect(movedOnA).toBeLessThanOrEqual(1.2 * owned);

    // Once B has pulled A's records, B serving the same keys counts nothing: they moved once.
    await syncCycles([a, b], 2);
    await send(b, keys, new Map());
    expect((await cart(b.admin)).teleports - sb.teleports).toBe(0);
    // Nor does B tell a worker a key moved that A already moved there (its worker claimed then).
    expect(keyMovedSeen - headersBefore).toBe(movedOnA);
    await send(a, keys, new Map());
    expect((await cart(a.admin)).teleports - sa.teleports).toBe(movedOnA);
  });
});
