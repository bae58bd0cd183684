/**
 * Hot sticky keys through a real `orrery-router` (two test workers, containerConcurrency 1): a
 * skewed load shows its hot key with its share, the key's HRW owner and how often the owner was
 * at its limit; `/v1/hot-keys` wants the store token; `/v1/stats` carries no key.
 */
import { Pool, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RouterHotKeysResponseSchema, type RouterHotKeysResponse } from '@orrery/spec';
import { hrwOwner } from './admit/hrw.ts';
import { endpointsYaml, functionYaml, ProcessGroup } from './testing/processes.ts';

const TOKEN = 'router-hot-keys-test-token';
const g = new ProcessGroup();
let url: string;
let admin: string;
let pool: Pool;
const workers: string[] = [];

beforeAll(async () => {
  for (const name of ['w1', 'w2']) workers.push((await g.upstream(name)).address);
  const routes = g.write(
    'routes.yaml',
    functionYaml({ name: 'shop', revisions: ['shop-00001'], sticky: '{source: header, name: X-Sid}', containerConcurrency: 1 }) + functionYaml({ name: 'plain', revisions: ['plain-00001'] }),
  );
  const endpoints = g.write(
    'endpoints.yaml',
    endpointsYaml([...workers.map((address) => ({ fn: 'shop', rev: 'shop-00001', address })), { fn: 'plain', rev: 'plain-00001', address: workers[0]! }]),
  );
  const tokenFile = g.write('store.token', `${TOKEN}\n`);
  ({ url, admin } = await g.router(['--routes-file', routes, '--endpoints-file', endpoints, '--store-token-file', tokenFile]));
  pool = new Pool(url, { connections: 16 });
}, 60_000);

afterAll(async () => {
  await pool?.close();
  await g.stopAll();
});

async function send(path: string, sid?: string): Promise<number> {
  const res = await pool.request({ path, method: 'GET', headers: sid === undefined ? {} : { 'x-sid': sid } });
  await res.body.dump();
  return res.statusCode;
}

/** `token: null` sends no Authorization header. */
async function hotKeys(query = '', token: string | null = TOKEN): Promise<{ status: number; body: unknown }> {
  const res = await request(`${admin}/v1/hot-keys${query}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
  return { status: res.statusCode, body: await res.body.json() };
}

describe('router hot keys (real process)', () => {
  it('a skewed load: the hot key leads with its share, its owner and the owner’s saturation', { timeout: 60_000 }, async () => {
    // "whale": 4 at a time, each held 150 ms by the worker: its owner (capacity 1) is always busy,
    // so most of its requests spill to the other worker or wait. 40 light keys, one request each at a time.
    const whale = Array.from({ length: 4 }, async () => {
      for (let i = 0; i < 8; i++) expect(await send('/default/shop/?delay=150', 'whale')).toBe(200);
    });
    const light = (async () => {
      for (let i = 0; i < 40; i++) expect(await send('/default/shop/', `user-${i}`)).toBe(200);
    })();
    // A function without a sticky key is never counted.
    const plain = (async () => {
      for (let i = 0; i < 10; i++) expect(await send('/default/plain/', 'whale')).toBe(200);
    })();
    await Promise.all([...whale, light, plain]);

    const a = await hotKeys('?limit=5');
    expect(a.status).toBe(200);
    const body: RouterHotKeysResponse = RouterHotKeysResponseSchema.parse(a.body);
    expect(body.functions.map((f) => `${f.namespace}/${f.function}`)).toEqual(['default/shop']);
    const shop = body.functions[0]!;
    const top = shop.keys[0]!;
    expect(top.key).toBe('whale');
    // 32 of 72 requests, weighted towards the recent past: near 0.44, at most the bound off.
    expect(top.share).toBeGreaterThan(0.3);
    expect(top.share).toBeLessThan(0.7);
    expect(top.rateError).toBe(0);
    // At least 3 of every 4 concurrent whale requests could not have the owner.
    expect(top.ownerBusyShare).toBeGreaterThan(0.5);
    expect(top.owner).toMatchObject({ revision: 'shop-00001', concurrency: 1, address: workers[hrwOwner('whale', workers)] });
    // The light keys got their owner (one request at a time) unless the whale's spill held it.
    const light1 = shop.keys.slice(1);
    expect(light1.length).toBeGreaterThan(0);
    for (const k of light1) expect(k.key).toMatch(/^user-\d+$/);
  });

  it('/v1/hot-keys wants the store token; /v1/stats carries no key', async () => {
    for (const token of [null, 'wrong-token', TOKEN.slice(0, -1)]) {
      const r = await hotKeys('', token);
      expect(r.status).toBe(401);
      expect(JSON.stringify(r.body)).not.toContain('whale');
    }
    expect((await hotKeys('?limit=0')).status).toBe(400);
    const stats = await (await request(`${admin}/v1/stats`)).body.text();
    expect(stats).not.toContain('whale');
    expect(stats).not.toContain('user-1');
  });

  it('a very long key is held cut (bounded memory), still with its owner', { timeout: 30_000 }, async () => {
    const long = `sess-${'x'.repeat(4000)}`;
    for (let i = 0; i < 40; i++) expect(await send('/default/shop/', long)).toBe(200);
    const body = RouterHotKeysResponseSchema.parse((await hotKeys('?function=shop&limit=50')).body);
    const cut = body.functions[0]!.keys.find((k) => k.key.startsWith('sess-'))!;
    expect(cut.key.length).toBeLessThanOrEqual(256);
    expect(cut.key).toMatch(/…#[0-9a-f]{16}$/);
    expect(cut.owner?.address).toBe(workers[hrwOwner(long, workers)]);
  });
});
