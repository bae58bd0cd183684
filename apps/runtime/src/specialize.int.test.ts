import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RegistryStandIn } from './testing/registry-stand-in.ts';
import { eventually, startRuntime, stopRuntime, type RuntimeProcess } from './testing/runtime-process.ts';

let rt: RuntimeProcess;
let dir: string;
const registry = new RegistryStandIn();
const code = `export const handler = async (req, ctx) => Response.json({ revision: ctx.revision, stateful: ctx.state !== undefined, tokenPath: process.env.ORRERY_STATE_TOKEN_PATH });`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'orrery-runtime-pool-'));
  await registry.start();
  rt = await startRuntime(['--mode', 'pool', '--admin-port', '0', '--work-dir', dir, '--registry-url', registry.url], { ORRERY_STATE_URL: 'http://127.0.0.1:9' });
}, 60_000);
afterAll(async () => {
  await stopRuntime(rt);
  await registry.close();
  await rm(dir, { recursive: true, force: true });
});

const specialize = (body: unknown) =>
  fetch(`${rt.adminUrl}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

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

  it('reports load errors, then specializes once with code and state credentials', { timeout: 30_000 }, async () => {
    const bad = await specialize({ function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'missing' });
    expect(bad.status).toBe(422);
    expect(await bad.json()).toMatchObject({ code: 'entrypoint_not_found' });

    const body = {
      namespace: 'shop', function: 'f', revision: 'f-00001', source: { inline: code }, entrypoint: 'handler', containerConcurrency: 1,
      stateCredentials: { namespace: 'shop', keyspace: 'f', token: 'pool-secret-token' },
    };
    const [a, b] = await Promise.all([specialize(body), specialize(body)]);
    const ja = await a.json();
    expect(a.status).toBe(200);
    expect(ja).toMatchObject({ specialized: true, namespace: 'shop', function: 'f', revision: 'f-00001', address: `127.0.0.1:${new URL(rt.url).port}` });
    expect(await b.json()).toEqual(ja);

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
