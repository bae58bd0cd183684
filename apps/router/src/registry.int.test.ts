/**
 * The router against the real registry: etcd (packages/etcdcluster) + the `orrery-registry`
 * binary (spawned, not imported) + an upstream worker + an `orrery-router` process. A worker
 * that registers is admitted; a request that arrived before it waited in the activator queue.
 */
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { deriveRegistrationCredential } from '@orrery/auth';
import { EtcdCluster } from '@orrery/etcdcluster';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, functionYaml, ProcessGroup, type RouterStatsJson } from './testing/processes.ts';

const REGISTRY_BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'registry', 'bin', 'orrery-registry.mjs');

const g = new ProcessGroup();
let etcd: EtcdCluster | undefined;
let registryUrl = '';
let router: { url: string; admin: string };
let worker = '';
// Worker registrations need the revision's credential, derived from the registry master key.
const registryKey = Buffer.alloc(32, 0x4e);
const credential = deriveRegistrationCredential(registryKey, 'team', 'orrery.functions.team.reg.reg-00001');

async function post(path: string, body: unknown): Promise<{ status: number; body: { code?: string; message?: string } }> {
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${credential}` };
  const res = await request(`${registryUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.statusCode, body: (await res.body.json()) as { code?: string } };
}
const stats = async (): Promise<RouterStatsJson> => (await (await request(`${router.admin}/v1/stats`)).body.json()) as RouterStatsJson;

const instance = (port: number) => ({
  namespace: 'team',
  service: 'orrery.functions.team.reg.reg-00001',
  instanceId: 'worker-1',
  labels: { 'orrery.dev/function': 'reg', 'orrery.dev/revision': 'reg-00001' },
  endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port }],
  leaseTtlSeconds: 30,
});

beforeAll(async () => {
  etcd = await EtcdCluster.start({ size: 1 });
  const keyFile = join(g.dir, 'registry-master.key');
  writeFileSync(keyFile, registryKey.toString('hex'));
  const reg = await g.start(
    [REGISTRY_BIN, '--http-addr', '127.0.0.1:0', '--admin-addr', '127.0.0.1:0', '--etcd-endpoints', etcd.endpoints().join(','), '--admin-token', 'admin-token-for-router-tests', '--replication-token', 'replication-token-for-router-tests', '--prometheus-sd-token', 'sd-token-for-router-tests', '--request-timeout', '4s', '--registry-master-key-file', keyFile,
      '--region', 'test', '--cluster-id', 'test', '--shutdown-timeout', '5s', '--registry-cleanup-interval', '30s', '--registry-cleanup-delete-limit', '128'],
    /listening (http:\/\/\S+) admin/,
    'orrery-registry',
  );
  registryUrl = reg.match[1]!;
  worker = (await g.upstream('registered')).address;
  const routes = g.write('routes.yaml', functionYaml({ name: 'reg', namespace: 'team', revisions: ['reg-00001'], timeoutSeconds: 60 }));
  router = await g.router(['--routes-file', routes, '--registry-url', registryUrl]);
}, 120_000);

afterAll(async () => {
  await g.stopAll();
  await etcd?.close();
});

describe('router with the real registry watch', () => {
  it('admits a worker once it registers (the waiting request goes through) and drops it on deregister', { timeout: 90_000 }, async () => {
    await eventually(async () => ((await stats()).registry?.[0]?.connected ? true : undefined), 'router connected to the registry watch');
    const waiting = request(`${router.url}/team/reg/hello`).then(async (r) => ({ status: r.statusCode, body: (await r.body.json()) as { name: string; path: string } }));
    await eventually(async () => ((await stats()).revisions.find((r) => r.revision === 'reg-00001')?.queued === 1 ? true : undefined), 'request queued');
    const port = Number(worker.split(':')[1]);
    const reg = await post('/api/v1/registry/register', instance(port));
    expect(reg.status, JSON.stringify(reg.body)).toBe(200);
    const done = await waiting;
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ name: 'registered', path: '/hello' });
    expect((await stats()).endpoints).toEqual([{ revision: 'team/reg-00001', address: `127.0.0.1:${port}`, ready: true, inflight: 0 }]);
    const dereg = await post('/api/v1/registry/deregister', { namespace: 'team', service: instance(port).service, instanceId: 'worker-1' });
    expect(dereg.status, JSON.stringify(dereg.body)).toBe(200);
    await eventually(async () => ((await stats()).endpoints.length === 0 ? true : undefined), 'endpoint removed after deregister');
  });
});
