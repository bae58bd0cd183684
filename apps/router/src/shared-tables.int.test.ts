/**
 * Two real `orrery-router` replicas sharing Redis through statesync (127.0.0.1:6379, random key prefix).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { STATESYNC_ENV } from '@orrery/spec';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { endpointsYaml, eventually, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';

const g = new ProcessGroup();
const prefix = `orrery-router-test-${randomBytes(4).toString('hex')}`;
const redis = new Redis('redis://127.0.0.1:6379', { lazyConnect: true });
let r1: { url: string; admin: string };
let r2: { url: string; admin: string };
let dead = '';
let s1 = '';
let s2 = '';
let endpointsPath = '';

async function get(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: { name?: string } }> {
  const res = await request(url, { headers });
  return { status: res.statusCode, body: (await res.body.json()) as { name?: string } };
}
const stats = async (admin: string): Promise<RouterStatsJson> => (await (await request(`${admin}/v1/stats`)).body.json()) as RouterStatsJson;

beforeAll(async () => {
  await redis.connect();
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  dead = `127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise((r) => probe.close(r));
  const [live, a, b] = await Promise.all([g.upstream('live'), g.upstream('s1'), g.upstream('s2')]);
  s1 = a.address;
  s2 = b.address;
  const routes = g.write('routes.yaml', functionYaml({ name: 'flaky', revisions: ['flaky-00001'] }) + functionYaml({ name: 'sticky', revisions: ['sticky-00001'], sticky: '{source: queryparam, name: user}' }));
  endpointsPath = g.write(
    'endpoints.yaml',
    endpointsYaml([
      { fn: 'flaky', rev: 'flaky-00001', address: dead },
      { fn: 'flaky', rev: 'flaky-00001', address: live.address },
      { fn: 'sticky', rev: 'sticky-00001', address: s1 },
      { fn: 'sticky', rev: 'sticky-00001', address: s2 },
    ]),
  );
  const files = ['--routes-file', routes, '--endpoints-file', endpointsPath];
  // Replica 1 takes its sync settings as flags, replica 2 from the environment a StateSync renders on Kubernetes.
  [r1, r2] = await Promise.all([
    g.router([...files, '--redis-url', 'redis://127.0.0.1:6379', '--redis-key-prefix', prefix, '--sync-period-ms', '200', '--router-id', 'r1']),
    g.router([...files, '--router-id', 'r2'], { [STATESYNC_ENV.url]: 'redis://127.0.0.1:6379', [STATESYNC_ENV.keyPrefix]: prefix, [STATESYNC_ENV.syncPeriodMs]: '200' }),
  ]);
  await eventually(async () => ((await stats(r1.admin)).endpoints.length === 4 && (await stats(r2.admin)).endpoints.length === 4 ? true : undefined), 'endpoints loaded');
}, 60_000);

afterAll(async () => {
  await g.stopAll();
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length > 0) await redis.del(...keys);
  redis.disconnect();
});

describe('router replicas sharing Redis', () => {
  it("honour each other's quarantine", { timeout: 60_000 }, async () => {
    // Replica 1 meets the refusing endpoint and quarantines it.
    await eventually(async () => {
      await get(`${r1.url}/default/flaky/`);
      return (await stats(r1.admin)).quarantined.some((q) => q.address === dead) ? true : undefined;
    }, 'replica 1 quarantines the dead endpoint');
    // Replica 2 learns it through Redis without ever dialing it.
    await eventually(async () => ((await stats(r2.admin)).quarantined.some((q) => q.address === dead) ? true : undefined), 'replica 2 sees the quarantine');
    for (let i = 0; i < 20; i++) {
      const r = await get(`${r2.url}/default/flaky/`);
      expect(r.status).toBe(200);
      expect(r.body.name).toBe('live');
    }
    expect((await stats(r2.admin)).dialErrors).toBe(0);
  });

  it('count a teleport on one replica when the key was last admitted on the other', { timeout: 60_000 }, async () => {
    const first = await get(`${r1.url}/default/sticky/?user=bob`);
    expect(first.status).toBe(200);
    const owner = first.body.name as string;
    // Wait until replica 2 has pulled replica 1's owner record.
    await eventually(async () => {
      const st = (await stats(r2.admin)).statesync;
      const owners = st?.syncables?.find((s) => s.syncable === 'router-sticky-owners');
      return owners && owners.entitiesPulledTotal > 0 ? true : undefined;
    }, 'replica 2 pulls the sticky owners');
    // The owner leaves; replica 2 (which never served bob) admits bob elsewhere: a teleport.
    g.write('endpoints.yaml', endpointsYaml([
      { fn: 'flaky', rev: 'flaky-00001', address: dead },
      { fn: 'sticky', rev: 'sticky-00001', address: owner === 's1' ? s2 : s1 },
    ]));
    await eventually(async () => ((await stats(r2.admin)).endpoints.length === 2 ? true : undefined), 'replica 2 reloads endpoints');
    const moved = await get(`${r2.url}/default/sticky/?user=bob`);
    expect(moved.status).toBe(200);
    expect(moved.body.name).not.toBe(owner);
    const f = (await stats(r2.admin)).functions.find((x) => x.function === 'sticky');
    expect(f?.teleports).toBe(1);
    expect(f?.stickyRequests).toBe(1);
  });

  it('a period given by flag or by the StateSync environment wins over ORRERY_STATESYNC_SYNC_PERIOD, which moves only the default', { timeout: 60_000 }, async () => {
    const files = ['--routes-file', g.write('routes4.yaml', functionYaml({ name: 'sticky', revisions: ['sticky-00001'] })), '--endpoints-file', g.write('endpoints4.yaml', endpointsYaml([{ fn: 'sticky', rev: 'sticky-00001', address: s1 }]))];
    const redisArgs = ['--redis-url', 'redis://127.0.0.1:6379', '--redis-key-prefix', `${prefix}-r4`];
    const override = { ORRERY_STATESYNC_SYNC_PERIOD: '1m' };
    const [byFlag, byStateSync, byDefault] = await Promise.all([
      g.router([...files, ...redisArgs, '--sync-period-ms', '250', '--router-id', 'r4'], override),
      g.router([...files, ...redisArgs, '--router-id', 'r5'], { ...override, [STATESYNC_ENV.syncPeriodMs]: '300' }),
      g.router([...files, ...redisArgs, '--router-id', 'r6'], { ORRERY_STATESYNC_SYNC_PERIOD: '750ms' }),
    ]);
    const period = async (admin: string): Promise<number | undefined> => ((await stats(admin)).statesync as { syncPeriodMs?: number } | undefined)?.syncPeriodMs;
    expect(await period(byFlag.admin)).toBe(250);
    expect(await period(byStateSync.admin)).toBe(300);
    expect(await period(byDefault.admin)).toBe(750);
  });

  it('takes record TTL and the shared tables from the StateSync environment', { timeout: 60_000 }, async () => {
    const prefix3 = `${prefix}-r3`;
    const r3 = await g.router(['--routes-file', g.write('routes3.yaml', functionYaml({ name: 'sticky', revisions: ['sticky-00001'], sticky: '{source: queryparam, name: user}' })), '--endpoints-file', g.write('endpoints3.yaml', endpointsYaml([{ fn: 'sticky', rev: 'sticky-00001', address: s1 }])), '--router-id', 'r3'], {
      [STATESYNC_ENV.url]: 'redis://127.0.0.1:6379',
      [STATESYNC_ENV.keyPrefix]: prefix3,
      [STATESYNC_ENV.syncPeriodMs]: '200',
      [STATESYNC_ENV.recordTtlMs]: '5000',
      [STATESYNC_ENV.syncables]: 'sticky-owners,lora-adapters',
    });
    expect((await get(`${r3.url}/default/sticky/?user=carol`)).status).toBe(200);
    // Only the sticky owners are shared (the quarantine table stays local; lora-adapters is not the router's).
    await eventually(async () => {
      const names = (await stats(r3.admin)).statesync?.syncables?.map((x) => x.syncable);
      return names?.length ? names : undefined;
    }, 'r3 statesync status').then((names) => expect(names).toEqual(['router-sticky-owners']));
    // Its records expire after the rendered TTL (5 s), not the 2 min default.
    const ttls = await eventually(async () => {
      const keys = await redis.keys(`${prefix3}:*`);
      const t = await Promise.all(keys.map((k) => redis.ttl(k)));
      const withTtl = t.filter((x) => x > 0);
      return withTtl.length ? withTtl : undefined;
    }, 'r3 writes its owner record');
    for (const t of ttls) expect(t).toBeLessThanOrEqual(5);
    const keys = await redis.keys(`${prefix3}:*`);
    if (keys.length) await redis.del(...keys);
  });
});
