import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Platform, revisionReady, startPlatform } from '../../testing/platform.ts';
import { until } from '../../testing/spawn-server.ts';

// Real operator (pool of 2 generic workers, 4 s idle reap, a store token), router with --executor-url, statesvc.
const TOKEN = 'pool-test-store-token';
const PID = `export default async () => new Response(String(process.pid));`;
const counter = (): string => {
  const doc = parse(readFileSync(join(import.meta.dirname, '..', '..', '..', '..', '..', 'examples', 'counter', 'function.yaml'), 'utf8')) as { spec: { template: { source: { inline: string } } } };
  return doc.spec.template.source.inline;
};

type Workers = { pids: number[]; pool: { specializations: number; warm: Record<string, number> } };

describe('pool executor (real processes)', () => {
  let p: Platform;
  const workers = async (): Promise<Workers> => (await (await fetch(`${p.op.url}/v1/workers`, { headers: { authorization: `Bearer ${TOKEN}` } })).json()) as Workers;
  const servedBy = (fn: string) => p.endpoints().filter((e) => e.function === fn && e.ready);
  const fnResource = (name: string, inline: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace: 'default' },
    spec: { template: { source: { inline }, executor: 'pool', timeoutSeconds: 30 }, ...extra },
  });

  beforeAll(async () => {
    p = await startPlatform({
      operatorArgs: ['--pool-size', '2', '--pool-idle-timeout', '4s'],
      routerArgs: [],
      // The router must send this token on specialize, poke and stats, or no cold request is served.
      storeToken: TOKEN,
      keyspaces: [{ namespace: 'default', keyspace: 'counter' }],
    });
    await p.store.apply(fnResource('pooled', PID));
    await p.store.apply(fnResource('counter', counter(), { state: { keyspace: 'counter' } }));
    await revisionReady(p, 'pooled-00001');
    await revisionReady(p, 'counter-00001');
    await p.publishRoutes();
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 2, 60_000, 'two warm workers');
  }, 90_000);

  afterAll(async () => {
    await p?.stop();
  }, 30_000);

  it('the executor and autoscaler endpoints refuse requests without the store token', async () => {
    const body = JSON.stringify({ namespace: 'default', function: 'pooled', revision: 'pooled-00001' });
    const post = (path: string, token?: string, payload = body) =>
      fetch(`${p.op.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: payload });
    for (const path of ['/v1/executor/specialize', '/v1/autoscaler/poke', '/v1/autoscaler/stats']) {
      for (const token of [undefined, 'wrong-token', `${TOKEN}x`]) {
        const res = await post(path, token);
        expect(res.status, `${path} with ${token ?? 'no token'}`).toBe(401);
        expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
      }
    }
    for (const token of [undefined, 'wrong-token']) {
      const res = await fetch(`${p.op.url}/v1/workers`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
      expect(res.status, `/v1/workers with ${token ?? 'no token'}`).toBe(401);
    }
    // With the token the same endpoints answer (an empty stats report changes nothing).
    expect((await post('/v1/autoscaler/stats', TOKEN, JSON.stringify({ router: 'test', revisions: [] }))).status).toBe(202);
  });

  it('a cold request is served by a specialized warm worker, and the pool refills', { timeout: 60_000 }, async () => {
    const before = await workers();
    expect(servedBy('pooled')).toHaveLength(0);
    const res = await fetch(`${p.routerUrl}/default/pooled/`);
    expect(res.status).toBe(200);
    const pid = Number(await res.text());
    expect(before.pids).toContain(pid); // it was one of the warm generic workers
    expect((await workers()).pool.specializations).toBe(before.pool.specializations + 1);
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 2, 30_000, 'pool refilled');
    await until(() => servedBy('pooled'), (l) => l.length === 1, 10_000, 'specialized worker published');
    // warm path: same worker, no new specialization
    expect(Number(await (await fetch(`${p.routerUrl}/default/pooled/`)).text())).toBe(pid);
    expect((await workers()).pool.specializations).toBe(before.pool.specializations + 1);
  });

  it('idle specialized workers are reaped; two concurrent cold requests share one specialization', { timeout: 60_000 }, async () => {
    await until(() => servedBy('pooled'), (l) => l.length === 0, 30_000, 'specialized worker reaped');
    await until(() => p.routerEndpoints('pooled'), (l) => l.length === 0, 10_000, 'router saw the reap');
    await until(workers, (w) => w.pool.warm['default/nodejs'] === 2, 30_000, 'pool warm');
    const before = (await workers()).pool.specializations;
    const [a, b] = await Promise.all([fetch(`${p.routerUrl}/default/pooled/`), fetch(`${p.routerUrl}/default/pooled/`)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(await a.text()).toBe(await b.text());
    expect((await workers()).pool.specializations).toBe(before + 1);
  });

  it('the stateful counter keeps its count across scale to zero (token delivered at specialize)', { timeout: 60_000 }, async () => {
    const post = async () => ((await (await fetch(`${p.routerUrl}/default/counter/?key=visits`, { method: 'POST' })).json()) as { count: number }).count;
    expect(await post()).toBe(1);
    expect(await post()).toBe(2);
    await until(() => servedBy('counter'), (l) => l.length === 0, 30_000, 'counter scaled to zero');
    await until(() => p.routerEndpoints('counter'), (l) => l.length === 0, 10_000, 'router saw it');
    expect(await post()).toBe(3);
  });
});
