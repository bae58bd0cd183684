/**
 * Issue 21, item 6: the seed's cross-region replication. Two regions on this machine, each its
 * own etcd and registry; cn-sh follows cn-bj through cn-bj's /internal/v1/replication/watch
 * ([replication] targets_file), and its Prometheus SD answers scope=merged with both regions'
 * instances, each labelled with its own region and cluster_id — following registrations,
 * changes, deregistrations and TTL expiry in cn-bj — while scope=local stays cn-sh's own.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, waitFor } from '@orrery/etcdcluster';
import { checkRouteAnswer, REGISTRY_ADMIN_HTTP_API } from '@orrery/spec';
import type { RunningRegistry } from './server.ts';
import { admin, call, regBody, startTestRegistry, TOKENS, type Loose } from './testing/fixture.ts';

let etcdBj: EtcdCluster;
let etcdSh: EtcdCluster;
let bj: RunningRegistry;
let sh: RunningRegistry;

beforeAll(async () => {
  [etcdBj, etcdSh] = await Promise.all([EtcdCluster.start({ size: 1 }), EtcdCluster.start({ size: 1 })]);
  bj = await startTestRegistry(etcdBj.endpoints(), ['--region', 'cn-bj', '--cluster-id', '200']);
  const targets = join(mkdtempSync(join(tmpdir(), 'registry-replication-')), 'targets.json');
  writeFileSync(targets, JSON.stringify({ targets: [{ region: 'cn-bj', url: bj.httpUrl, namespaces: ['prod'], clusterId: '200' }] }));
  sh = await startTestRegistry(etcdSh.endpoints(), ['--region', 'cn-sh', '--cluster-id', '100', '--replication-targets-file', targets]);
}, 90_000);

afterAll(async () => {
  await sh?.close();
  await bj?.close();
  await Promise.all([etcdBj?.close(), etcdSh?.close()]);
}, 60_000);

/** cn-sh's SD answer as `instance_id region cluster_id target` lines, sorted. */
async function sd(qs: string): Promise<string[]> {
  const r = await call(sh.httpUrl, 'GET', `/internal/v1/prometheus/sd?${qs}`, undefined, { authorization: `Bearer ${TOKENS.sd}` });
  expect(r.status).toBe(200);
  return (r.body as unknown as Loose[]).map((g) => `${g.labels.instance_id} ${g.labels.region} ${g.labels.cluster_id} ${g.targets[0]}`).sort();
}
const until = (what: string, qs: string, expected: string[]) =>
  {
  let last: string[] = [];
  return waitFor(what, 10_000, async () => ((last = await sd(qs)).join('|') === expected.join('|') ? true : undefined), () => `expected ${expected.join(', ')}, got ${last.join(', ')}`, 100);
};
/** cn-sh's replication streams as `/admin/v1/replication/status` shows them. */
const streams = async (): Promise<Loose[]> => {
  const r = await admin(sh, 'GET', '/admin/v1/replication/status');
  expect(r.body.code, r.body.message).toBe('ok');
  expect(checkRouteAnswer(REGISTRY_ADMIN_HTTP_API, 'GET', '/admin/v1/replication/status', r.status, r.body)).toBe('GET /admin/v1/replication/status 200');
  return r.body.data.targets;
};
const register = async (base: string, ns: string, id: string, over: Record<string, unknown> = {}) => expect((await call(base, 'POST', '/api/v1/registry/register', regBody(ns, id, over))).body.code).toBe('ok');

describe('cross-region replication (scope=merged)', () => {
  it('merged answers carry the other region\'s instances and follow them; local answers stay local', { timeout: 60_000 }, async () => {
    await register(bj.httpUrl, 'prod', 'bj-1');
    await register(bj.httpUrl, 'staging', 'bj-staging'); // a namespace cn-sh does not follow
    await register(sh.httpUrl, 'prod', 'sh-1');

    await until('cn-bj\'s instance in cn-sh\'s merged answer', 'namespace=prod&scope=merged', ['bj-1 cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);
    expect(await sd('namespace=prod')).toEqual(['sh-1 cn-sh 100 10.0.0.1:9090']);
    expect(await sd('namespace=prod&scope=local')).toEqual(['sh-1 cn-sh 100 10.0.0.1:9090']);
    // Every namespace: the followed one only.
    expect(await sd('scope=merged')).toEqual(['bj-1 cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);

    // A change in cn-bj (the metrics endpoint moves) reaches cn-sh.
    await register(bj.httpUrl, 'prod', 'bj-1', { endpoints: [{ name: 'metrics', protocol: 'http', host: '10.0.9.9', port: 9100 }] });
    await until('the moved endpoint', 'namespace=prod&scope=merged', ['bj-1 cn-bj 200 10.0.9.9:9100', 'sh-1 cn-sh 100 10.0.0.1:9090']);

    // A worker in cn-bj that stops renewing leaves cn-sh's merged answer at its TTL (cn-bj's rule).
    await register(bj.httpUrl, 'prod', 'bj-ttl', { leaseTtlSeconds: 2 });
    await until('the short-lived instance', 'namespace=prod&scope=merged', ['bj-1 cn-bj 200 10.0.9.9:9100', 'bj-ttl cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);
    await until('the expired instance gone', 'namespace=prod&scope=merged', ['bj-1 cn-bj 200 10.0.9.9:9100', 'sh-1 cn-sh 100 10.0.0.1:9090']);

    // A deregistration in cn-bj.
    expect((await call(bj.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: 'prod', service: 'company.test.order.order-center.api', instanceId: 'bj-1' })).body.code).toBe('ok');
    await until('the deregistered instance gone', 'namespace=prod&scope=merged', ['sh-1 cn-sh 100 10.0.0.1:9090']);
    const metrics = await (await fetch(`${sh.httpUrl}/metrics`)).text();
    expect(metrics).toContain('orrery_registry_replication_connected{region="cn-bj",namespace="prod"} 1');
    // The seed's /admin/v1/replication/status: one stream per target and namespace.
    const [stream, ...more] = await streams();
    expect(more).toEqual([]);
    expect(stream).toMatchObject({ region: 'cn-bj', url: bj.httpUrl, namespace: 'prod', connected: true, synced: true, instances: 0 });
    expect(stream.lastError).toBeUndefined();
    expect(Date.parse(stream.since)).toBeLessThanOrEqual(Date.now());
    // Its revision is cn-bj's last one applied (the deregistration), not cn-sh's own.
    const bjRevision = (await admin(bj, 'GET', '/admin/v1/replication/status')).body.data.registry.indexRevision;
    await waitFor('the last revision applied', 10_000, async () => ((await streams())[0].revision === bjRevision ? true : undefined));
  });

  it('a dropped stream resumes after its last revision and catches up with what changed meanwhile', { timeout: 60_000 }, async () => {
    await register(bj.httpUrl, 'prod', 'bj-keep');
    await register(bj.httpUrl, 'prod', 'bj-gone');
    await until('both before the outage', 'namespace=prod&scope=merged', ['bj-gone cn-bj 200 10.0.0.1:9090', 'bj-keep cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);
    // cn-bj's registry goes away (cn-sh keeps the last known set) while its etcd changes through
    // another cn-bj replica; then it comes back on the same address.
    const { port } = new URL(bj.httpUrl);
    const revisionBefore = (await streams())[0].revision;
    const closedAt = Date.now();
    await bj.close();
    // The status says so: not connected since the drop, why, and the last revision applied kept.
    let down: Loose;
    await waitFor('the stream shown as down', 10_000, async () => ((down = (await streams())[0]).connected === false ? true : undefined));
    expect(down).toMatchObject({ region: 'cn-bj', namespace: 'prod', connected: false, revision: revisionBefore, instances: 2 });
    expect(down.lastError).toMatch(/stream ended|ECONNREFUSED|socket hang up|ECONNRESET/);
    expect(Date.parse(down.since)).toBeGreaterThanOrEqual(closedAt - 1000);
    const other = await startTestRegistry(etcdBj.endpoints(), ['--region', 'cn-bj', '--cluster-id', '200']);
    try {
      expect((await call(other.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: 'prod', service: 'company.test.order.order-center.api', instanceId: 'bj-gone' })).body.code).toBe('ok');
      await register(other.httpUrl, 'prod', 'bj-new');
      expect(await sd('namespace=prod&scope=merged')).toEqual(['bj-gone cn-bj 200 10.0.0.1:9090', 'bj-keep cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);
    } finally {
      await other.close();
    }
    bj = await startTestRegistry(etcdBj.endpoints(), ['--region', 'cn-bj', '--cluster-id', '200', '--http-addr', `127.0.0.1:${port}`]);
    await until('caught up after the outage', 'namespace=prod&scope=merged', ['bj-keep cn-bj 200 10.0.0.1:9090', 'bj-new cn-bj 200 10.0.0.1:9090', 'sh-1 cn-sh 100 10.0.0.1:9090']);
    const up = (await streams())[0];
    expect(up).toMatchObject({ connected: true, instances: 2 });
    expect(up.revision).toBeGreaterThan(revisionBefore);
    expect(up.lastError).toBeUndefined();
    expect(Date.parse(up.since)).toBeGreaterThan(Date.parse(down.since));
  });

  it('the replication status needs the admin token', async () => {
    const none = await call(sh.adminUrl, 'GET', '/admin/v1/replication/status');
    expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
    const wrong = await call(sh.adminUrl, 'GET', '/admin/v1/replication/status', undefined, { authorization: `Bearer ${TOKENS.replication}` });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'forbidden']);
  });

  it('the replication watch needs the replication token', async () => {
    const r = await call(bj.httpUrl, 'GET', '/internal/v1/replication/watch?namespace=prod', undefined, { authorization: 'Bearer wrong' });
    expect(r.status).toBe(403);
  });
});
