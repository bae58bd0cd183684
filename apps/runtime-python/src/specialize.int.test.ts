/**
 * Pool mode of the Python runtime, as a real process: a generic warm worker specialized over HTTP
 * with its single-use nonce (the executor's), code and state credentials in the body, the state
 * token file written 0444, registration as the revision with the credential from the body, and the
 * Node runtime's refusals (apps/runtime/src/specialize.int.test.ts and specialize-nonce.security.test.ts).
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintSpecializeNonce, specializeVerifier } from '@orrery/auth';
import { RegistryRecorder } from './testing/registry-recorder.ts';
import { eventually, startPythonRuntime, stopPythonRuntime, type PythonRuntimeProcess } from './testing/python-runtime-process.ts';

let rt: PythonRuntimeProcess;
let dir: string;
const nonce = mintSpecializeNonce();
const registry = new RegistryRecorder();
const CREDENTIAL = 'c0ffee42'.repeat(8);
const code = `import os

def handler(request, ctx):
    return {"revision": ctx.revision, "stateful": ctx.state is not None, "tokenPath": os.environ.get("ORRERY_STATE_TOKEN_PATH"), "mode": os.environ.get("MODE"),
            "leaked": [k for k in ("ORRERY_SPECIALIZE_VERIFIER", "ORRERY_REGISTRY_CREDENTIAL", "ORRERY_STATE_TOKEN") if k in os.environ]}
`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-python-pool-'));
  await registry.start();
  rt = await startPythonRuntime(['--mode', 'pool', '--admin-port', '0', '--work-dir', dir, '--registry-url', registry.url], { ORRERY_STATE_URL: 'http://127.0.0.1:9', ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(nonce) });
}, 30_000);
afterAll(async () => {
  await stopPythonRuntime(rt);
  await registry.close();
  await rm(dir, { recursive: true, force: true });
});

const specialize = (body: unknown, adminUrl = rt.adminUrl, token: string | null = nonce) =>
  fetch(`${adminUrl}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });

describe('pool mode of the Python runtime: a generic worker specialized over HTTP (real process)', () => {
  it('is ready but refuses function traffic (and stays out of the registry) until specialized', async () => {
    expect(registry.calls).toEqual([]);
    expect(await (await fetch(`${rt.adminUrl}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
    // The warm-up request it served itself before listening leaves no trace in its stats.
    expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ function: null, totalRequests: 0 });
    expect(rt.stderr()).toMatch(/"msg":"warmed up"/);
    const res = await fetch(`${rt.url}/anything`);
    expect([res.status, ((await res.json()) as { code: string }).code]).toEqual([503, 'not_specialized']);
  });

  it('a load error answers 422 with the loader\'s code and leaves the worker spent', { timeout: 20_000 }, async () => {
    const other = mintSpecializeNonce();
    const spare = await startPythonRuntime(['--mode', 'pool', '--admin-port', '0', '--work-dir', join(dir, 'spare')], { ORRERY_SPECIALIZE_VERIFIER: specializeVerifier(other) });
    try {
      const bad = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'missing' }, spare.adminUrl, other);
      expect(bad.status).toBe(422);
      expect(await bad.json()).toMatchObject({ code: 'entrypoint_not_found' });
      const again = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code } }, spare.adminUrl, other);
      expect([again.status, ((await again.json()) as { code: string }).code]).toEqual([409, 'specialize_nonce_used']);
      const ready = await fetch(`${spare.adminUrl}/readyz`);
      expect([ready.status, await ready.json()]).toEqual([503, { status: 'spent' }]);
    } finally {
      await stopPythonRuntime(spare);
    }
  });

  it('refuses a missing or wrong nonce with 401 (WWW-Authenticate: Bearer) without using it up', async () => {
    for (const token of [null, 'wrong', specializeVerifier(nonce)]) {
      const res = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code } }, rt.adminUrl, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe('Bearer');
      expect(((await res.json()) as { code: string }).code).toBe('unauthorized');
    }
  });

  it('specializes once with code, env, state credentials and its registry credential, then registers as the revision', { timeout: 20_000 }, async () => {
    const body = {
      namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler', containerConcurrency: 1, env: { MODE: 'live' },
      stateCredentials: { namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' },
      registryCredential: { namespace: 'shop', service: 'orrery.functions.shop.f.f-00001', token: CREDENTIAL },
    };
    const a = await specialize(body);
    expect(a.status).toBe(200);
    expect(await a.json()).toMatchObject({ specialized: true, namespace: 'shop', function: 'f', revision: 'f-00001', address: `127.0.0.1:${new URL(rt.url).port}`, loadMs: expect.any(Number) });
    const replay = await specialize(body);
    expect([replay.status, ((await replay.json()) as { code: string }).code]).toEqual([409, 'specialize_nonce_used']);

    const tokenPath = join(dir, '.orrery-state-token');
    expect((await stat(tokenPath)).mode & 0o777).toBe(0o444);
    expect(JSON.parse(await readFile(tokenPath, 'utf8'))).toEqual({ namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' });
    expect(await (await fetch(`${rt.url}/x`)).json()).toEqual({ revision: 'f-00001', stateful: true, tokenPath, mode: 'live', leaked: [] });
    expect(await (await fetch(`${rt.adminUrl}/v1/stats`)).json()).toMatchObject({ revision: 'f-00001', containerConcurrency: 1 });

    const reg = await eventually(() => registry.calls.find((c) => c.path === 'register'));
    expect(reg.authorization).toBe(`Bearer ${CREDENTIAL}`);
    expect(reg.body).toMatchObject({
      namespace: 'shop', service: 'orrery.functions.shop.f.f-00001',
      labels: { 'orrery.dev/function': 'f', 'orrery.dev/revision': 'f-00001', 'orrery.dev/executor': 'pool' },
      metadata: { 'orrery.dev/container-concurrency': '1' },
      endpoints: [
        { name: 'http', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.url).port) },
        { name: 'admin', protocol: 'http', host: '127.0.0.1', port: Number(new URL(rt.adminUrl!).port) },
      ],
    });
    expect(rt.stderr()).not.toContain('pool-secret-token');
    expect(rt.stderr()).not.toContain(CREDENTIAL);
  });

  it('deregisters on SIGTERM and exits 0', { timeout: 20_000 }, async () => {
    await stopPythonRuntime(rt);
    expect(await rt.exited).toBe(0);
    expect(registry.calls.at(-1)).toMatchObject({ path: 'deregister', authorization: `Bearer ${CREDENTIAL}`, body: { namespace: 'shop', service: 'orrery.functions.shop.f.f-00001' } });
  });
});
