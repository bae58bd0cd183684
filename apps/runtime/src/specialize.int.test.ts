import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { RegistryStandIn } from './testing/registry-stand-in.ts';
import { eventually, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

let rt: RuntimeProcess;
let dir: string;
// The executor's single-use nonce for this worker; the worker gets only its SHA-256.
const nonce = mintSpecializeNonce();
const registry = new RegistryStandIn();
const code = `export const handler = async (req, ctx) => Response.json({ revision: ctx.revision, stateful: ctx.state !== undefined, tokenPath: process.env.ORRERY_STATE_TOKEN_PATH });`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-pool-'));
  await registry.start();
  rt = await startRuntime(['--mode', 'pool', '--admin-port', '0', '--work-dir', dir, '--registry-url', registry.url], { ORRERY_STATE_URL: 'http://127.0.0.1:9', ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(nonce) });
}, 60_000);
afterAll(async () => {
  await stopRuntime(rt);
  await registry.close();
  await rm(dir, { recursive: true, force: true });
});

const specialize = (body: unknown, adminUrl = rt.adminUrl, token = nonce) =>
  fetch(`${adminUrl}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body: JSON.stringify(body) });

describe('pool mode: a generic worker specialized over HTTP (real process)', () => {
  it('is ready but refuses function traffic (and stays out of the registry) until specialized', async () => {
    expect(registry.calls).toEqual([]);
    expect(await (await fetch(`${rt.adminUrl}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    // The warm-up request it served itself before listening leaves no trace in its stats.
    expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ function: null, totalRequests: 0 });
    expect(rt.stderr()).toMatch(/"msg":"warmed up"/);
    const res = await fetch(`${rt.url}/anything`);
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ code: 'not_specialized' });
  });

  it('reports a load error and is spent afterwards: not ready, its nonce used up', { timeout: 30_000 }, async () => {
    const other = mintSpecializeNonce();
    const spare = await startRuntime(['--mode', 'pool', '--admin-port', '0', '--work-dir', join(dir, 'spare')], { ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(other) });
    try {
      const bad = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'missing' }, spare.adminUrl, other);
      expect(bad.status).toBe(422);
      expect(await bad.json()).toMatchObject({ code: 'entrypoint_not_found' });
      const again = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler' }, spare.adminUrl, other);
      expect(again.status).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'specialize_nonce_used' });
      const ready = await fetch(`${spare.adminUrl}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: 'spent' });
    } finally {
      await stopRuntime(spare);
    }
  });

  it('specializes once with code and state credentials', { timeout: 30_000 }, async () => {
    const body = {
      namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler', containerConcurrency: 1,
      stateCredentials: { namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' },
    };
    const a = await specialize(body);
    const ja = await a.json();
    expect(a.status).toBe(200);
    expect(ja).toMatchObject({ specialized: true, namespace: 'shop', function: 'f', revision: 'f-00001', address: `127.0.0.1:${new URL(rt.url).port}` });
    // The nonce is single-use: the same call again is a replay.
    const b = await specialize(body);
    expect(b.status).toBe(409);
    expect(await b.json()).toMatchObject({ code: 'specialize_nonce_used' });

    const tokenPath = join(dir, '.orrery-state-token');
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
    expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' });
    expect(await (await fetch(`${rt.url}/x`)).json()).toEqual({ revision: 'f-00001', stateful: true, tokenPath });
    expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ revision: 'f-00001', containerConcurrency: 1 });

    // Registered as the revision it now serves, with the pool executor label and its admin endpoint.
    await eventually(() => registry.paths().includes('register'));
    const reg = registry.calls.find((c) => c.path.endsWith('/register'))!.body;
    expect(reg).toMatchObject({
      namespace: 'shop', service: 'orrery.functions.shop.f.f-00001',
      labels: { 'orrery.dev/function': 'f', 'orrery.dev/revision': 'f-00001', 'orrery.dev/executor': 'pool' },
      endpoints: [
        { name: 'http', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) },
        { name: 'admin', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.adminUrl!).port) },
      ],
    });

    const other = await specialize({ ...body, revision: 'f-00002' });
    expect(other.status).toBe(409);
    expect(rt.stderr()).not.toContain('pool-secret-token');
  });
});
