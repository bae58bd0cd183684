/**
 * Hot keys on the real `orrery-statesvc` process: a skewed load through the state API shows up in
 * the signed admin read with its share and rate; only requests that passed the token and the
 * declaration count; the read is an admin route like the others (signed, scope in the query).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveStateToken, signAdminUrl } from '@orrery/auth';
import { StateHotKeysResponseSchema, type StateHotKeysResponse } from '@orrery/spec';
import { spawnStatesvc, type StatesvcProcess } from './spawn-statesvc.ts';

const MASTER = Buffer.alloc(32, 0x3c);
let dir: string;
let svc: StatesvcProcess;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'orrery-statesvc-hot-'));
  writeFileSync(join(dir, 'master.key'), MASTER.toString('hex'));
  writeFileSync(join(dir, 'keyspaces.yaml'), '- {namespace: shop, keyspace: cart}\n- {namespace: shop, keyspace: quiet}\n');
  svc = await spawnStatesvc(['--master-key-file', join(dir, 'master.key'), '--keyspaces-file', join(dir, 'keyspaces.yaml')]);
}, 60_000);
afterAll(async () => {
  await svc?.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function state(method: string, key: string, opts: { keyspace?: string; token?: string; body?: string } = {}): Promise<number> {
  const keyspace = opts.keyspace ?? 'cart';
  const res = await fetch(`${svc.url}/v1/state/${encodeURIComponent(key)}`, {
    method,
    headers: {
      authorization: `Bearer ${opts.token ?? deriveStateToken(MASTER, 'shop', keyspace)}`,
      'x-orrery-state-namespace': 'shop',
      'x-orrery-state-keyspace': keyspace,
      'content-type': 'application/json',
    },
    body: opts.body,
  });
  await res.arrayBuffer();
  return res.status;
}

async function hotKeys(query: string): Promise<StateHotKeysResponse> {
  const res = await fetch(svc.url + signAdminUrl(MASTER, 'GET', `/v1/admin/hot-keys${query}`, Date.now() / 1000 + 60));
  expect(res.status).toBe(200);
  return StateHotKeysResponseSchema.parse(await res.json());
}

describe('statesvc hot keys (real process)', () => {
  it('a skewed load: the hot key leads with its share, the rate is the request rate', { timeout: 60_000 }, async () => {
    // 600 requests: "hot" every 3rd (200), the rest over 100 cold keys (4 each); reads and writes.
    const started = Date.now();
    const lanes = Array.from({ length: 8 }, async (_, lane) => {
      for (let i = lane; i < 600; i += 8) {
        const key = i % 3 === 0 ? 'hot' : `cold-${i % 100}`;
        const status = i % 2 === 0 ? await state('PUT', key, { body: String(i) }) : await state('GET', key);
        expect([200, 404]).toContain(status);
      }
    });
    await Promise.all(lanes);
    const seconds = (Date.now() - started) / 1000;
    const a = await hotKeys('?scope-namespace=shop&scope-keyspace=cart&limit=5');
    const cart = a.keyspaces[0]!;
    expect(cart.keys[0]!.key).toBe('hot');
    // Decay weighs the last requests a little more; the share of a steady mix stays ≈ 1/3, within the bound.
    const bound = cart.boundRate / cart.rate;
    expect(Math.abs(cart.keys[0]!.share - 1 / 3)).toBeLessThan(0.05 + bound);
    expect(cart.keys[0]!.rateError).toBe(0);
    expect(cart.keys).toHaveLength(5);
    // The rate is requests per second of the recent past: the order of 600 / seconds.
    expect(cart.rate).toBeGreaterThan((600 / seconds) * 0.3);
    expect(cart.rate).toBeLessThan((600 / seconds) * 3);
  });

  it('only requests with a valid token for a declared keyspace count', { timeout: 30_000 }, async () => {
    // An outsider hammering a key with a wrong token, and a keyspace nobody declared: refused, not counted.
    for (let i = 0; i < 40; i++) {
      expect(await state('GET', 'planted', { token: 'f'.repeat(64) })).toBe(403);
      expect(await state('GET', 'planted', { keyspace: 'undeclared', token: deriveStateToken(MASTER, 'shop', 'undeclared') })).toBe(403);
    }
    // A malformed key is refused before counting too.
    expect(await state('GET', '#meta')).toBe(400);
    const a = await hotKeys('?limit=50');
    expect(a.keyspaces.map((k) => k.keyspace)).toEqual(['cart']);
    expect(a.keyspaces[0]!.keys.map((k) => k.key)).not.toContain('planted');
    expect(a.keyspaces[0]!.keys.map((k) => k.key)).not.toContain('#meta');
  });

  it('keyspaces are separate: the quiet keyspace sees only its own keys', async () => {
    for (let i = 0; i < 3; i++) expect(await state('GET', 'q-key', { keyspace: 'quiet' })).toBe(404);
    const a = await hotKeys('?scope-namespace=shop&scope-keyspace=quiet');
    expect(a.keyspaces).toHaveLength(1);
    expect(a.keyspaces[0]!.keys.map((k) => k.key)).toEqual(['q-key']);
    expect(a.keyspaces[0]!.keys[0]!.share).toBe(1);
  });

  it('the admin read is signed: unsigned, tampered, expired, header scope and wrong method are refused', async () => {
    const now = Date.now() / 1000;
    const body = async (res: Response) => (await res.json()) as { code: string };
    const unsigned = await fetch(`${svc.url}/v1/admin/hot-keys`);
    expect(unsigned.status).toBe(401);
    expect((await body(unsigned)).code).toBe('unauthorized');
    // Signed for the quiet keyspace, sent for cart: the signature covers the query.
    const tampered = signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys?scope-namespace=shop&scope-keyspace=quiet', now + 60).replace('scope-keyspace=quiet', 'scope-keyspace=cart');
    expect((await fetch(svc.url + tampered)).status).toBe(401);
    expect((await fetch(svc.url + signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys', now - 5))).status).toBe(401);
    expect((await fetch(svc.url + signAdminUrl(Buffer.alloc(32, 1), 'GET', '/v1/admin/hot-keys', now + 60))).status).toBe(401);
    // Signed for another admin route.
    const usage = signAdminUrl(MASTER, 'GET', '/v1/admin/namespaces', now + 60).replace('/v1/admin/namespaces', '/v1/admin/hot-keys');
    expect((await fetch(svc.url + usage)).status).toBe(401);
    const headerScope = await fetch(svc.url + signAdminUrl(MASTER, 'GET', '/v1/admin/hot-keys', now + 60), { headers: { 'x-orrery-state-namespace': 'shop' } });
    expect(headerScope.status).toBe(400);
    const post = await fetch(svc.url + signAdminUrl(MASTER, 'POST', '/v1/admin/hot-keys', now + 60), { method: 'POST' });
    expect(post.status).toBe(400);
    // A refusal carries no key.
    const refused = await (await fetch(`${svc.url}/v1/admin/hot-keys?scope-namespace=shop`)).text();
    expect(refused).not.toMatch(/"hot"|cold-|q-key/);
  });
});
