/**
 * Pool mode, as a real process: a generic warm worker specialized over HTTP with its single-use
 * nonce (the executor's; the worker gets only its SHA-256), code, env, state credentials and its
 * registry credential in the body, the state token file written 0444, registration as the
 * revision, and deregistration on SIGTERM.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { RegistryStandIn } from './registry-stand-in.ts';
import { eventually, stopRuntime, type RuntimeProcess } from './runtime-process.ts';
import type { RuntimeUnderTest } from './runtime-under-test.ts';

const CREDENTIAL = 'c0ffee42'.repeat(8);
const SERVICE = 'orrery.functions.shop.f.f-00001';

export function poolContract(runtime: RuntimeUnderTest): void {
  describe(`pool mode of ${runtime.name}: a generic worker specialized over HTTP (real process)`, () => {
    let rt: RuntimeProcess;
    let dir: string;
    const nonce = mintSpecializeNonce();
    const registry = new RegistryStandIn();
    const code = runtime.sources.pool;

    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-pool-'));
      await registry.start();
      rt = await runtime.start(['--mode', 'pool', '--admin-port', '0', '--work-dir', dir, '--registry-url', registry.url], { ORRERY_STATE_URL: 'http://127.0.0.1:9', ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(nonce) });
    }, 60_000);
    afterAll(async () => {
      await stopRuntime(rt);
      await registry.close();
      await rm(dir, { recursive: true, force: true });
    });

    const specialize = (body: unknown, adminUrl = rt.adminUrl, token: string | null = nonce) =>
      fetch(`${adminUrl}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

    it('is ready but refuses function traffic (and stays out of the registry) until specialized', async () => {
      expect(registry.calls).toEqual([]);
      expect(await (await fetch(`${rt.adminUrl}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
      // The warm-up request it served itself before listening leaves no trace in its stats.
      expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ function: null, totalRequests: 0 });
      expect(rt.stderr()).toMatch(/"msg":"warmed up"/);
      const res = await fetch(`${rt.url}/anything`);
      expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([503, 'not_specialized']);
    });

    it('a load error answers 422 with the loader\'s code and leaves the worker spent: not ready, its nonce used up', { timeout: 30_000 }, async () => {
      const other = mintSpecializeNonce();
      const spare = await runtime.start(['--mode', 'pool', '--admin-port', '0', '--work-dir', join(dir, 'spare')], { ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(other) });
      try {
        const bad = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'missing' }, spare.adminUrl, other);
        expect(bad.status).toBe(422);
        expect(await bad.json()).toMatchObject({ code: 'entrypoint_not_found' });
        const again = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler' }, spare.adminUrl, other);
        expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([409, 'specialize_nonce_used']);
        const ready = await fetch(`${spare.adminUrl}/readyz`);
        expect([ready.status, await ready.json()]).toEqual([503, { status: 'spent' }]);
      } finally {
        await stopRuntime(spare);
      }
    });

    it('refuses a missing or wrong nonce (the verifier itself too) with 401 (WWW-Authenticate: Bearer) without using it up', async () => {
      for (const token of [null, 'wrong', specializeVerifier(nonce)]) {
        const res = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code } }, rt.adminUrl, token);
        expect(res.status).toBe(401);
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
        expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
      }
    });

    it('specializes once with code, env, state credentials and its registry credential, then registers as the revision', { timeout: 30_000 }, async () => {
      const body = {
        namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler', containerConcurrency: 1, env: { MODE: 'live' },
        stateCredentials: { namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' },
        registryCredential: { namespace: 'shop', service: SERVICE, token: CREDENTIAL },
      };
      const a = await specialize(body);
      expect(a.status).toBe(200);
      expect(await a.json()).toMatchObject({ specialized: true, namespace: 'shop', function: 'f', revision: 'f-00001', address: `127.0.0.1:${new URL(rt.url).port}`, loadMs: expect.any(Number) });
      // The nonce is single-use: the same call again is a replay.
      const replay = await specialize(body);
      expect([replay.status, ((await replay.json()) as { code: string }).code]).toEqual([409, 'specialize_nonce_used']);

      const tokenPath = join(dir, '.orrery-state-token');
      expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
      expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' });
      expect(await (await fetch(`${rt.url}/x`)).json()).toEqual({ revision: 'f-00001', stateful: true, tokenPath, mode: 'live', leaked: [] });
      expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ revision: 'f-00001', containerConcurrency: 1 });

      // Registered as the revision it now serves, with the pool executor label, its admin endpoint and the credential from the body.
      const reg = await eventually(() => registry.calls.find((c) => c.path.endsWith('/register')));
      expect(reg.authorization).toBe(`Bearer ${CREDENTIAL}`);
      expect(reg.body).toMatchObject({
        namespace: 'shop', service: SERVICE,
        labels: { 'orrery.dev/function': 'f', 'orrery.dev/revision': 'f-00001', 'orrery.dev/executor': 'pool' },
        metadata: { 'orrery.dev/container-concurrency': '1' },
        endpoints: [
          { name: 'http', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) },
          { name: 'admin', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.adminUrl!).port) },
        ],
      });

      const other = await specialize({ ...body, revision: 'f-00002' });
      expect(other.status).toBe(409);
      expect(rt.stderr()).not.toContain('pool-secret-token');
      expect(rt.stderr()).not.toContain(CREDENTIAL);
    });

    it('deregisters on SIGTERM and exits 0', { timeout: 30_000 }, async () => {
      await stopRuntime(rt);
      expect(await rt.exited).toBe(0);
      expect(registry.calls.at(-1)).toMatchObject({ path: '/api/v1/registry/deregister', authorization: `Bearer ${CREDENTIAL}`, body: { namespace: 'shop', service: SERVICE } });
    });
  });
}
