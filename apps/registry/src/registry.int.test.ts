/**
 * The registry over a real 3-member etcd cluster (one cluster for this file): the seed's
 * example requests, the wire contract, watch semantics, consistency (CONS-001..003), the admin
 * API with MEM-001/002, FAULT-001, REC-001 and a checked linearizable history under leader faults.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EtcdCluster, noRetryClient, waitFor } from '@orrery/etcdcluster';
import { checkRouteAnswer, REGISTRY_ADMIN_HTTP_API, REGISTRY_HTTP_API, RegistryAdminStatusSchema } from '@orrery/spec';
import type { RunningRegistry } from './server.ts';
import type { Instance } from './model/instance.ts';
import type { MemberView } from './admin/cluster-admin.ts';
import { admin as adminCall, call, credentialHeader, regBody, SseClient, spawnRegistry, startTestRegistry, TOKENS } from './testing/fixture.ts';
import { SEED_REGISTRATION } from './testing/seed-instance.ts';
import { checkLinearizable, type Operation } from './lincheck/wgl.ts';
import { prepareHistory, registryModel, type RegistryInput, type RegistryOutput } from './lincheck/registry-model.ts';

const SERVICE = 'company.test.order.order-center.api';
const CLI = join(dirname(fileURLToPath(import.meta.url)), '../../cli/bin/orrery.mjs');

function runCli(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('exit', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}
let cluster: EtcdCluster;
let a: RunningRegistry;
let b: RunningRegistry;
const sse: SseClient[] = [];

beforeAll(async () => {
  cluster = await EtcdCluster.start({ size: 3 });
  // Two registry replicas on different endpoint orders: writes through one, reads through the other.
  a = await startTestRegistry(cluster.endpoints(), ['--registry-cleanup-interval', '1s'], { keepAliveMs: 500 });
  b = await startTestRegistry([...cluster.endpoints()].reverse());
}, 90_000);

afterAll(async () => {
  for (const s of sse) s.close();
  await a?.close();
  await b?.close();
  await cluster?.close();
}, 60_000);

const open = async (url: string, headers: Record<string, string> = {}) => {
  const s = await SseClient.open(url, headers);
  sse.push(s);
  return s;
};
/** Every admin answer in this file (membership changes included) is checked against REGISTRY_ADMIN_HTTP_API. */
const admin = async (r: { adminUrl: string }, method: 'GET' | 'POST', path: string, body?: unknown) => {
  const answer = await adminCall(r, method, path, body);
  checkRouteAnswer(REGISTRY_ADMIN_HTTP_API, method, path, answer.status, answer.body);
  return answer;
};
const register = (r: RunningRegistry, ns: string, id: string, over: Record<string, unknown> = {}) => call(r.httpUrl, 'POST', '/api/v1/registry/register', regBody(ns, id, over));
const query = (r: RunningRegistry, qs: string) => call(r.httpUrl, 'GET', `/api/v1/registry/instances?${qs}`);

describe('seed examples', () => {
  it('registers the seed example and answers its three queries', { timeout: 30_000 }, async () => {
    const reg = await call(a.httpUrl, 'POST', '/api/v1/registry/register', SEED_REGISTRATION);
    expect(reg.status).toBe(200);
    expect(reg.body.code).toBe('ok');
    expect(reg.body.requestId).toBeTruthy();
    for (const qs of [
      'namespace=prod&service=company.trade.order.order-center.api&zone=az1&endpoint=http&selector=color=gray,version%20in%20(v2),!deprecated',
      'namespace=prod&servicePrefix=company.trade.order&endpoint=http',
      'namespace=prod&organization=company&businessDomain=trade&capabilityDomain=order',
      'namespace=prod&organization=company&businessDomain=trade&capabilityDomain=order&label=color=gray&label=version=v2',
    ]) {
      const q = await query(b, qs);
      expect(q.status, qs).toBe(200);
      expect(q.body.data.instances.map((i: Instance) => i.instanceId), qs).toEqual(['order-center-api-10.0.1.23']);
    }
    const hb = await call(a.httpUrl, 'POST', '/api/v1/registry/heartbeat', {
      namespace: 'prod',
      service: 'company.trade.order.order-center.api',
      instanceId: 'order-center-api-10.0.1.23',
      leaseTtlSeconds: 30,
    });
    expect(hb.body).toMatchObject({ code: 'ok', data: { leaseTtlSeconds: 30, ttlChanged: false } });
  });

  it('answers bad selectors with 400 bad_request and the syntax help', async () => {
    for (const sel of ['version in v2', 'color=', 'color=gray,,version=v2']) {
      const q = await query(a, `namespace=prod&selector=${encodeURIComponent(sel)}`);
      expect(q.status).toBe(400);
      expect(q.body.code).toBe('bad_request');
      expect(q.body.message).toContain(`invalid selector "${sel}"`);
      expect(q.body.message).toContain('valid example: selector=color=gray,version in (v2),!deprecated');
    }
    const missing = await query(a, 'service=a.b.c.d.e');
    expect(missing.body.code).toBe('bad_request');
    const notFound = await call(a.httpUrl, 'POST', '/api/v1/registry/heartbeat', { namespace: 'prod', service: SERVICE, instanceId: 'nobody' });
    expect([notFound.status, notFound.body.code]).toEqual([404, 'not_found']);
    const dereg = await call(a.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: 'prod', service: SERVICE, instanceId: 'nobody' });
    expect([dereg.status, dereg.body.code]).toEqual([404, 'not_found']);
  });

  it('accepts Orrery worker names (segments with dashes and digits)', async () => {
    const r = await call(a.httpUrl, 'POST', '/api/v1/registry/register', {
      namespace: 'team-a',
      service: 'orrery.functions.team-a.counter.counter-00001',
      instanceId: 'counter-00001-7f9c-1',
      labels: { 'orrery.dev/function': 'counter', 'orrery.dev/revision': 'counter-00001', 'orrery.dev/executor': 'deploy' },
      endpoints: [{ name: 'http', protocol: 'http', host: '127.0.0.1', port: 41234 }],
    }, credentialHeader('team-a', 'orrery.functions.team-a.counter.counter-00001'));
    expect(r.body.code).toBe('ok');
    const q = await query(b, 'namespace=team-a&servicePrefix=orrery.functions.team-a.counter&selector=orrery.dev/revision=counter-00001');
    expect(q.body.data.instances).toHaveLength(1);
    expect(q.body.data.instances[0].labels['orrery.dev/executor']).toBe('deploy');
  });

  it('serves Prometheus SD with the seed labels, behind its token', async () => {
    const none = await fetch(`${a.httpUrl}/internal/v1/prometheus/sd?namespace=prod`);
    expect(none.status).toBe(401);
    const bad = await fetch(`${a.httpUrl}/internal/v1/prometheus/sd?namespace=prod`, { headers: { authorization: 'Bearer nope' } });
    expect(bad.status).toBe(403);
    const res = await fetch(`${a.httpUrl}/internal/v1/prometheus/sd?namespace=prod&endpoint=metrics`, { headers: { authorization: `Bearer ${TOKENS.sd}` } });
    expect(res.headers.get('content-type')).toContain('application/json');
    const groups = (await res.json()) as Array<{ targets: string[]; labels: Record<string, string> }>;
    const g = groups.find((x) => x.labels.instance_id === 'order-center-api-10.0.1.23');
    expect(g?.targets).toEqual(['10.0.1.23:8080']);
    expect(Object.keys(g!.labels).sort()).toEqual(
      ['namespace', 'service', 'instance_id', 'region', 'zone', 'cluster_id', 'target_kind', '__scheme__', '__metrics_path__'].sort(),
    );
    expect(g!.labels).toMatchObject({ target_kind: 'service_instance', __scheme__: 'http', __metrics_path__: '/metrics', zone: 'az1' });
  });

  it('reports health, readiness and metrics', async () => {
    const h = await call(a.httpUrl, 'GET', '/healthz');
    expect(h.body.data.leaderId).toMatch(/^[0-9a-f]+$/);
    expect(h.body.data.leaderAddr).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await call(a.httpUrl, 'GET', '/readyz')).status).toBe(200);
    const m = await fetch(`${a.httpUrl}/metrics`);
    expect(await m.text()).toContain('orrery_registry_requests_total');
  });
});

describe('wire contract (@orrery/spec, the source of docs/http-api.md)', () => {
  it('every route answers as its schema says, errors as the error envelope with a listed code', { timeout: 30_000 }, async () => {
    const seen = new Set<string>();
    const pub = async (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const r = await call(a.httpUrl, method, path, body, headers);
      seen.add(checkRouteAnswer(REGISTRY_HTTP_API, method, path, r.status, r.body));
      return r;
    };
    const ns = 'contract';
    const id = { namespace: ns, service: SERVICE, instanceId: 'c1' };
    const w = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}`);
    await w.waitFor('snapshot', (e) => e.length >= 1);
    expect((await pub('POST', '/api/v1/registry/register', { ...regBody(ns, 'c1'), metadata: { owner: 'team' } })).status).toBe(200);
    expect((await pub('POST', '/api/v1/registry/heartbeat', id)).status).toBe(200);
    expect((await pub('POST', '/api/v1/registry/heartbeat', { ...id, leaseTtlSeconds: 90 })).body.data.ttlChanged).toBe(true);
    expect((await pub('GET', `/api/v1/registry/instances?namespace=${ns}`)).body.data.instances).toHaveLength(1);
    expect((await pub('GET', `/internal/v1/prometheus/sd?namespace=${ns}`, undefined, { authorization: `Bearer ${TOKENS.sd}` })).body).toHaveLength(1);
    expect((await pub('POST', '/api/v1/registry/deregister', id)).status).toBe(200);
    await w.waitFor('delete', (e) => e.some((x) => x.event === 'delete'));
    for (const e of w.events) seen.add(checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/api/v1/registry/watch', 200, e.data));
    const repl = await open(`${a.httpUrl}/internal/v1/replication/watch?namespace=${ns}`, { authorization: `Bearer ${TOKENS.replication}` });
    await repl.waitFor('snapshot', (e) => e.length >= 1);
    seen.add(checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/internal/v1/replication/watch', 200, repl.events[0]!.data));
    for (const path of ['/healthz', '/readyz', '/metrics']) expect((await pub('GET', path)).status).toBe(200);

    // Errors, one of each kind a healthy cluster can be asked for.
    expect((await pub('POST', '/api/v1/registry/heartbeat', id)).status).toBe(404);
    expect((await pub('GET', `/api/v1/registry/instances?namespace=${ns}&selector=${encodeURIComponent('version in v2')}`)).status).toBe(400);
    expect((await pub('POST', '/api/v1/registry/register', { ...regBody(ns, 'big'), metadata: { blob: 'x'.repeat(70_000) } })).status).toBe(413);
    expect((await pub('GET', '/api/v1/registry/register')).status).toBe(405);
    expect((await pub('GET', '/internal/v1/prometheus/sd?namespace=x')).status).toBe(401);
    expect((await pub('GET', '/internal/v1/prometheus/sd?namespace=x', undefined, { authorization: 'Bearer nope' })).status).toBe(403);
    expect((await pub('GET', '/no/such/route')).status).toBe(404);
    const worker = { ...regBody(ns, 'w1'), service: `orrery.functions.${ns}.fn.fn-00001` };
    expect((await pub('POST', '/api/v1/registry/register', worker)).status).toBe(401);
    expect((await pub('POST', '/api/v1/registry/register', worker, credentialHeader(ns, `orrery.functions.${ns}.fn.fn-00002`))).status).toBe(403);
    const badWatch = await SseClient.open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}&includeSnapshot=maybe`);
    seen.add(checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/api/v1/registry/watch', badWatch.status, JSON.parse(badWatch.body)));

    for (const r of REGISTRY_HTTP_API.routes) expect([...seen]).toContain(`${r.method} ${r.path} 200`);
    const codes = new Set([...seen].map((x) => x.split(' ').at(-1)));
    for (const code of ['bad_request', 'not_found', 'payload_too_large', 'method_not_allowed', 'unauthorized', 'forbidden', 'credential_required', 'credential_rejected']) expect([...codes]).toContain(code);

    // The admin listener (membership changes are checked the same way in the MEM tests below).
    for (const path of ['/admin/v1/status', '/admin/v1/replication/status']) expect((await admin(a, 'GET', path)).status).toBe(200);
    expect((await admin(a, 'GET', '/admin/v1/members/promote')).status).toBe(405);
    expect((await admin(a, 'POST', '/admin/v1/members/remove', { id: 'ffff' })).status).toBe(404);
    for (const [headers, status] of [[{}, 401], [{ authorization: 'Bearer wrong' }, 403]] as const) {
      const r = await call(a.adminUrl, 'GET', '/admin/v1/status', undefined, headers);
      expect(checkRouteAnswer(REGISTRY_ADMIN_HTTP_API, 'GET', '/admin/v1/status', r.status, r.body)).toBe(`GET /admin/v1/status ${status === 401 ? 'unauthorized' : 'forbidden'}`);
    }
  });
});

describe('watch', () => {
  it('sends snapshot, upsert, delete-on-leaving-filter, nothing for heartbeats, keep-alives', { timeout: 40_000 }, async () => {
    const ns = 'watch1';
    await register(a, ns, 'w1');
    const w = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}&service=${SERVICE}&selector=color=gray`);
    await w.waitFor('snapshot', (e) => e.length >= 1);
    expect(w.events[0]!.event).toBe('snapshot');
    expect(w.events[0]!.data.instances.map((i: Instance) => i.instanceId)).toEqual(['w1']);
    const r2 = await register(a, ns, 'w2');
    await w.waitFor('upsert w2', (e) => e.some((x) => x.event === 'upsert' && x.data.instance.instanceId === 'w2'));
    const up = w.events.find((x) => x.event === 'upsert')!;
    expect(up.data.revision).toBe(r2.body.data.revision);
    expect(up.id).toBe(String(r2.body.data.revision));
    // Pure heartbeats change nothing in etcd and must not reach watchers.
    const before = w.events.length;
    for (let i = 0; i < 3; i++) await call(a.httpUrl, 'POST', '/api/v1/registry/heartbeat', { namespace: ns, service: SERVICE, instanceId: 'w1' });
    // Leaving the filter (label change) is a delete for this watcher.
    const r3 = await register(a, ns, 'w1', { labels: { color: 'blue' } });
    await w.waitFor('delete w1', (e) => e.some((x) => x.event === 'delete' && x.data.instance.instanceId === 'w1'));
    expect(w.events.slice(before).map((x) => x.event)).toEqual(['delete']);
    expect(w.events.at(-1)!.data.revision).toBe(r3.body.data.revision);
    // Deregister of a matching instance is a delete too.
    await call(a.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: ns, service: SERVICE, instanceId: 'w2' });
    await w.waitFor('delete w2', (e) => e.some((x) => x.event === 'delete' && x.data.instance.instanceId === 'w2'));
    await w.waitFor('keep-alive comment', () => w.comments > 0);
    expect(w.events.filter((x) => x.event === 'snapshot')).toHaveLength(1);
  });

  it('lease expiry deletes the instance and emits delete', { timeout: 40_000 }, async () => {
    const ns = 'expiry';
    const w = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}`);
    await w.waitFor('snapshot', (e) => e.length >= 1);
    await register(b, ns, 'short', { leaseTtlSeconds: 2 });
    await w.waitFor('upsert', (e) => e.some((x) => x.event === 'upsert'));
    await w.waitFor('delete after lease expiry', (e) => e.some((x) => x.event === 'delete' && x.data.instance.instanceId === 'short'), 20_000);
    const q = await query(b, `namespace=${ns}`);
    expect(q.body.data.instances).toEqual([]);
  });

  it('the cleanup sweep removes a record whose lease is gone (bounded per round)', { timeout: 40_000 }, async () => {
    const ns = 'sweep';
    const w = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}`);
    await w.waitFor('snapshot', (e) => e.length >= 1);
    // Written behind the registry's back, without a lease: etcd would keep it forever.
    const record = { ...regBody(ns, 'orphan'), organization: 'company', businessDomain: 'test', capabilityDomain: 'order', application: 'order-center', role: 'api', metadata: {}, endpoints: [] };
    const client = noRetryClient(cluster.runningEndpoints(), 5000);
    try {
      await client.put(`/orrery/registry/i/${ns}/${SERVICE}/orphan`).value(JSON.stringify(record)).exec();
    } finally {
      client.close();
    }
    await w.waitFor('upsert orphan', (e) => e.some((x) => x.event === 'upsert'));
    await w.waitFor('sweep delete', (e) => e.some((x) => x.event === 'delete' && x.data.instance.instanceId === 'orphan'), 30_000);
    // The sweeper's answer from etcd and the watch event travel on different streams.
    await expect.poll(() => a.sweeper.removed + b.sweeper.removed, { timeout: 5_000 }).toBeGreaterThanOrEqual(1);
  });

  it('registrations committed in one txn share a revision; a watcher resuming after any of their events misses none', { timeout: 60_000 }, async () => {
    // Puts share a txn only when they reach the writer while earlier ones are in flight; on a
    // loaded machine a burst can arrive spread out enough that none do. Another burst in a fresh
    // namespace then (at most 4): the resume logic needs one shared revision to be tested at all.
    const N = 12;
    let ns = '';
    let w: Awaited<ReturnType<typeof open>> | undefined;
    let revs: number[] = [];
    for (let burst = 1; burst <= 4; burst++) {
      w?.close();
      ns = `shared-rev-${burst}`;
      w = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}`);
      await w.waitFor('snapshot', (e) => e.length >= 1);
      const outs = await Promise.all(Array.from({ length: N }, (_, i) => register(a, ns, `s${i}`)));
      expect(outs.every((o) => o.body.code === 'ok')).toBe(true);
      await w.waitFor(`${N} upserts`, (e) => e.filter((x) => x.event === 'upsert').length === N);
      revs = w.events.filter((x) => x.event === 'upsert').map((x) => x.data.revision as number);
      if (new Set(revs).size < N) break;
    }
    expect(new Set(revs).size).toBeLessThan(N);
    const ups = w!.events.filter((x) => x.event === 'upsert');
    for (const [k, ev] of ups.entries()) {
      // The id is the resume position: the revision itself only on the last event of it.
      const lastOfRevision = revs[k + 1] !== revs[k];
      expect(Number(ev.id)).toBe(lastOfRevision ? revs[k] : revs[k]! - 1);
    }
    // Cut the stream right after the first event of a shared revision, then resume after its id.
    const cut = revs.findIndex((r, k) => revs[k + 1] === r);
    const resumed = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}&includeSnapshot=false`, { 'last-event-id': ups[cut]!.id! });
    const expected = N - cut - 1;
    await resumed.waitFor('the rest of the revision and after', (e) => new Set(e.filter((x) => x.event === 'upsert').map((x) => x.data.instance.instanceId)).size >= expected);
    const seen = new Set([...ups.slice(0, cut + 1), ...resumed.events].filter((x) => x.event === 'upsert').map((x) => x.data.instance.instanceId as string));
    expect(seen.size).toBe(N);
  });

  it('resumes across a registry restart with sinceRevision: no gap, no duplicate', { timeout: 90_000 }, async () => {
    const ns = 'resume';
    const proc = await spawnRegistry(cluster.endpoints());
    try {
      const w1 = await open(`${proc.httpUrl}/api/v1/registry/watch?namespace=${ns}`);
      await w1.waitFor('snapshot', (e) => e.length >= 1);
      const revs: number[] = [];
      for (let i = 0; i < 5; i++) revs.push((await register(a, ns, `r${i}`)).body.data.revision);
      await w1.waitFor('5 upserts', (e) => e.filter((x) => x.event === 'upsert').length === 5);
      const last = Number(w1.events.at(-1)!.id);
      await proc.stop('SIGKILL');
      w1.close();
      // Changes while no registry process serves this watcher.
      for (let i = 5; i < 8; i++) revs.push((await register(a, ns, `r${i}`)).body.data.revision);
      revs.push((await call(a.httpUrl, 'POST', '/api/v1/registry/deregister', { namespace: ns, service: SERVICE, instanceId: 'r0' })).body.data.revision);
      const proc2 = await spawnRegistry(cluster.endpoints());
      try {
        const w2 = await open(`${proc2.httpUrl}/api/v1/registry/watch?namespace=${ns}&sinceRevision=${last}&includeSnapshot=false`);
        await w2.waitFor('replay', (e) => e.length >= 4);
        await register(a, ns, 'r9');
        await w2.waitFor('live after replay', (e) => e.some((x) => x.data.instance?.instanceId === 'r9'));
        const seen = [...w1.events.filter((x) => x.event !== 'snapshot'), ...w2.events].map((x) => Number(x.id));
        expect(w2.events.some((x) => x.event === 'snapshot')).toBe(false);
        expect(w2.events.slice(0, 4).map((x) => `${x.event}:${x.data.instance.instanceId}`)).toEqual(['upsert:r5', 'upsert:r6', 'upsert:r7', 'delete:r0']);
        expect(new Set(seen).size).toBe(seen.length);
        expect(seen.slice(0, revs.length)).toEqual(revs);
        // SIGTERM is a clean shutdown: open watch streams are cut and the process exits 0.
        await proc2.stop('SIGTERM');
        expect(proc2.child.exitCode).toBe(0);
        await waitFor('the watch stream to be ended by the shutdown', 10_000, async () => (w2.ended ? true : undefined));
      } finally {
        await proc2.stop();
      }
    } finally {
      await proc.stop('SIGKILL');
    }
  });

  it('answers 410 revision_expired after compaction (or a fresh snapshot when asked)', { timeout: 30_000 }, async () => {
    const ns = 'compact';
    const old = (await register(a, ns, 'c1')).body.data.revision as number;
    await register(a, ns, 'c1', { labels: { color: 'x' } });
    const rev = (await register(a, ns, 'c2')).body.data.revision as number;
    const client = noRetryClient(cluster.runningEndpoints(), 5000);
    try {
      await client.kv.compact({ revision: String(rev), physical: true });
    } finally {
      client.close();
    }
    const gone = await SseClient.open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}&sinceRevision=${old}&includeSnapshot=false`);
    expect(gone.status).toBe(410);
    expect(JSON.parse(gone.body)).toMatchObject({ code: 'revision_expired' });
    checkRouteAnswer(REGISTRY_HTTP_API, 'GET', '/api/v1/registry/watch', gone.status, JSON.parse(gone.body));
    const fresh = await open(`${a.httpUrl}/api/v1/registry/watch?namespace=${ns}&sinceRevision=${old}&includeSnapshot=true`);
    await fresh.waitFor('snapshot', (e) => e.length >= 1);
    expect(fresh.events[0]!.event).toBe('snapshot');
    expect(fresh.events[0]!.data.instances.map((i: Instance) => i.instanceId)).toEqual(['c1', 'c2']);
    // Replication watch: same stream, behind its own token.
    const noToken = await SseClient.open(`${a.httpUrl}/internal/v1/replication/watch?namespace=${ns}`);
    expect(noToken.status).toBe(401);
    const repl = await open(`${a.httpUrl}/internal/v1/replication/watch?namespace=${ns}`, { authorization: `Bearer ${TOKENS.replication}` });
    await repl.waitFor('snapshot', (e) => e.length >= 1);
    expect(repl.events[0]!.data.instances).toHaveLength(2);
  });
});

describe('consistency', () => {
  it('CONS-001: a register is visible to an immediate query through another replica', { timeout: 60_000 }, async () => {
    const ns = 'cons1';
    for (let i = 0; i < 30; i++) {
      const r = await register(a, ns, `i${i % 3}`, { labels: { gen: String(i) } });
      expect(r.body.code).toBe('ok');
      const q = await query(b, `namespace=${ns}&service=${SERVICE}`);
      const got = q.body.data.instances.find((x: Instance) => x.instanceId === `i${i % 3}`);
      expect(got?.labels.gen).toBe(String(i));
      expect(q.body.data.revision).toBeGreaterThanOrEqual(r.body.data.revision);
    }
  });

  it('CONS-002: after concurrent writes, concurrent reads never see an old value', { timeout: 60_000 }, async () => {
    const ns = 'cons2';
    const writers = Array.from({ length: 8 }, (_, w) =>
      (async () => {
        for (let i = 0; i < 6; i++) await register(w % 2 ? a : b, ns, `w${w}`, { labels: { gen: String(i) } });
      })(),
    );
    await Promise.all(writers);
    const reads = await Promise.all(Array.from({ length: 16 }, (_, i) => query(i % 2 ? a : b, `namespace=${ns}`)));
    for (const q of reads) {
      expect(q.body.data.instances).toHaveLength(8);
      for (const inst of q.body.data.instances) expect(inst.labels.gen).toBe('5');
    }
  });

  it('CONS-003: leadership moves mid-traffic; no acknowledged write lost, reads never go back', { timeout: 90_000 }, async () => {
    const ns = 'cons3';
    const acked = new Map<string, number>();
    let stop = false;
    const lastSeen = new Map<string, number>();
    let regressions = 0;
    const writer = (async () => {
      for (let i = 0; !stop; i++) {
        const r = await register(a, ns, `k${i % 5}`, { labels: { gen: String(i) } }).catch(() => undefined);
        if (r?.body.code === 'ok') acked.set(`k${i % 5}`, i);
      }
    })();
    const reader = (async () => {
      let lastRevision = 0;
      while (!stop) {
        const q = await query(b, `namespace=${ns}`).catch(() => undefined);
        if (q?.body.code !== 'ok') continue;
        if (q.body.data.revision < lastRevision) regressions++;
        lastRevision = q.body.data.revision;
        for (const inst of q.body.data.instances) {
          const gen = Number(inst.labels.gen);
          if (gen < (lastSeen.get(inst.instanceId) ?? -1)) regressions++;
          lastSeen.set(inst.instanceId, gen);
        }
      }
    })();
    await waitFor('some traffic', 20_000, async () => (acked.size >= 3 ? true : undefined));
    // Move leadership twice through the admin API.
    for (let round = 0; round < 2; round++) {
      const st = (await admin(a, 'GET', '/admin/v1/status')).body.data;
      const target = st.members.find((m: MemberView) => !m.isLeader && !m.isLearner);
      const t = await admin(a, 'POST', '/admin/v1/leader/transfer', { targetId: target.id });
      expect(t.body.code, t.body.message).toBe('ok');
      await waitFor('new leader', 30_000, async () => ((await admin(a, 'GET', '/admin/v1/status')).body.data.leader?.id === target.id ? true : undefined));
      const n = acked.size;
      await waitFor('writes after the move', 20_000, async () => (acked.size >= n ? true : undefined));
    }
    stop = true;
    await Promise.all([writer, reader]);
    const q = await query(a, `namespace=${ns}`);
    for (const [id, gen] of acked) {
      const inst = q.body.data.instances.find((x: Instance) => x.instanceId === id);
      expect(Number(inst?.labels.gen)).toBeGreaterThanOrEqual(gen);
    }
    expect(regressions).toBe(0);
  });
});

describe('admin API and membership (MEM-001, MEM-002)', () => {
  it('refuses non-token and wrong-token callers', async () => {
    const none = await call(a.adminUrl, 'GET', '/admin/v1/status');
    expect([none.status, none.body.code]).toEqual([401, 'unauthorized']);
    const wrong = await call(a.adminUrl, 'GET', '/admin/v1/status', undefined, { authorization: 'Bearer wrong' });
    expect([wrong.status, wrong.body.code]).toEqual([403, 'forbidden']);
    const pub = await call(a.httpUrl, 'GET', '/admin/v1/status', undefined, { authorization: `Bearer ${TOKENS.admin}` });
    expect(pub.status).toBe(404);
    const bad = await admin(a, 'POST', '/admin/v1/members/promote', { id: 'not-hex' });
    expect([bad.status, bad.body.code]).toEqual([400, 'bad_request']);
  });

  // Spawns the CLI (tsx start-up takes seconds on a loaded machine): more than the default 5 s.
  it('status lists every member with raft progress and one leader', { timeout: 60_000 }, async () => {
    const st = await admin(a, 'GET', '/admin/v1/status');
    expect(st.body.code).toBe('ok');
    expect(st.body.data.members).toHaveLength(3);
    expect(st.body.data.members.filter((m: MemberView) => m.isLeader)).toHaveLength(1);
    // The answer is what the CLI's schema expects (one contract in @orrery/spec).
    expect(RegistryAdminStatusSchema.safeParse(st.body.data).error).toBeUndefined();
    for (const m of st.body.data.members) {
      expect(m).toMatchObject({ reachable: true, isLearner: false });
      expect(m.raftTerm).toBeGreaterThan(0);
      expect(m.raftAppliedIndex).toBeGreaterThan(0);
      expect(m.dbSize).toBeGreaterThan(0);
    }
    // The CLI renders the same data as a table (run as a process: apps do not import each other).
    // Asynchronously: this process serves the admin API the CLI calls.
    const cli = await runCli(['registry', 'status', '--admin-url', a.adminUrl, '--token', TOKENS.admin]);
    expect(cli.status, cli.stderr).toBe(0);
    expect(cli.stdout).toMatch(/^cluster [0-9a-f]+ {2}leader m\d \([0-9a-f]+\)/);
    expect(cli.stdout.split('\n').filter((l) => / voter /.test(l))).toHaveLength(3);
    const repl = await admin(a, 'GET', '/admin/v1/replication/status');
    expect(repl.body.data.registry.indexRevision).toBeGreaterThan(0);
    expect(repl.body.data.members).toHaveLength(3);
  });

  it('adds a learner that syncs but cannot vote, promotes it, moves leadership to it, removes it', { timeout: 120_000 }, async () => {
    const m4 = await cluster.prepareMember('m4');
    // etcd refuses membership changes until every member has been healthy for ~5 s (this test
    // can be the file's first when run alone); that refusal is final, so asking again is safe.
    const add = await waitFor('add-learner', 30_000, async () => {
      const r = await admin(a, 'POST', '/admin/v1/members/add-learner', { name: 'm4', peerURL: m4.peerURL });
      return r.body.code === 'conf_change_failed' && /healthy for ~5 s/.test(r.body.message) ? undefined : r;
    }, undefined, 1000);
    expect(add.body.code, add.body.message).toBe('ok');
    const id: string = add.body.data.member.id;
    expect(add.body.data.initialCluster).toContain(`m4=${m4.peerURL}`);
    // A second learner is refused with a clear message (etcd allows one).
    const second = await admin(a, 'POST', '/admin/v1/members/add-learner', { name: 'm5', peerURL: 'http://127.0.0.1:1' });
    expect(second.body.code).toBe('conf_change_failed');
    expect(second.body.message).toMatch(/learner/);
    cluster.startPrepared('m4', add.body.data.initialCluster, { learner: true, id });
    // MEM-001: the learner catches up with the log …
    await register(a, 'mem', 'before-learner');
    await waitFor('learner to catch up', 60_000, async () => {
      const st = (await admin(a, 'GET', '/admin/v1/status')).body.data;
      const l = st.members.find((m: MemberView) => m.id === id);
      const leader = st.members.find((m: MemberView) => m.isLeader);
      return l?.reachable && l.isLearner && l.raftAppliedIndex >= leader.raftAppliedIndex - 1 ? true : undefined;
    });
    // … but does not vote: with two of three voters stopped, learner + one voter have no quorum.
    const voters = cluster.members.filter((m) => m.name !== 'm4' && m.state === 'running').map((m) => m.name);
    const survivor = voters[0]!;
    for (const v of voters.slice(1)) cluster.stop(v);
    try {
      const direct = noRetryClient([cluster.member(survivor).clientURL], 3000);
      try {
        await expect(direct.put('mem/quorum').value('x').exec()).rejects.toThrow();
      } finally {
        direct.close();
      }
    } finally {
      for (const v of voters.slice(1)) cluster.cont(v);
    }
    await cluster.waitForLeader(60_000);
    // MEM-002: promote (etcd refuses until the learner is in sync; the API says so).
    await waitFor('promote', 60_000, async () => {
      const p = await admin(a, 'POST', '/admin/v1/members/promote', { id });
      if (p.body.code === 'ok') return true;
      expect(p.body.code).toMatch(/learner_not_caught_up|conf_change_failed|not_leader|read_failed|not_ready/);
      return undefined;
    });
    cluster.markVoter('m4');
    // The member list comes from whichever member answers status; one that has not applied the
    // promotion yet still shows a learner for a moment, so wait for the view to converge.
    await waitFor('m4 listed as a voter', 30_000, async () => {
      const st = (await admin(a, 'GET', '/admin/v1/status')).body.data;
      return st.members.find((m: MemberView) => m.id === id)?.isLearner === false ? true : undefined;
    });
    // Leadership to the new voter, through the current leader.
    await waitFor('transfer to m4', 60_000, async () => {
      const t = await admin(a, 'POST', '/admin/v1/leader/transfer', { targetId: id });
      return t.body.code === 'ok' ? true : undefined;
    });
    await waitFor('m4 leads', 30_000, async () => ((await admin(a, 'GET', '/admin/v1/status')).body.data.leader?.id === id ? true : undefined));
    expect((await register(a, 'mem', 'under-m4')).body.code).toBe('ok');
    // And remove it again (leadership moves away by itself).
    await waitFor('remove m4', 60_000, async () => {
      const r = await admin(a, 'POST', '/admin/v1/members/remove', { id });
      return r.body.code === 'ok' ? true : undefined;
    });
    await cluster.markRemoved('m4');
    await cluster.waitForLeader(60_000);
    const after = (await admin(a, 'GET', '/admin/v1/status')).body.data;
    expect(after.members).toHaveLength(3);
    const q = await query(b, 'namespace=mem');
    expect(q.body.data.instances.map((i: Instance) => i.instanceId).sort()).toEqual(['before-learner', 'under-m4']);
  });
});

describe('faults', () => {
  it('FAULT-001: kill the leader; writes resume under a new leader', { timeout: 90_000 }, async () => {
    const leader = await cluster.leader();
    await cluster.kill(leader);
    const newLeader = await cluster.waitForLeader(60_000);
    expect(newLeader).not.toBe(leader);
    await waitFor('a write to succeed', 60_000, async () => ((await register(a, 'fault1', 'after-kill').catch(() => undefined))?.body.code === 'ok' ? true : undefined));
    const q = await query(b, 'namespace=fault1');
    expect(q.body.data.instances.map((i: Instance) => i.instanceId)).toEqual(['after-kill']);
    await cluster.restart(leader);
    await cluster.waitForLeader(60_000);
  });

  it('a concurrent history under a killed and a paused leader is linearizable (WGL)', { timeout: 150_000 }, async () => {
    const ns = 'lin';
    const t0 = performance.now();
    const history: Array<Operation<RegistryInput, RegistryOutput>> = [];
    let stop = false;
    const ids = ['x', 'y', 'z'];
    const runClient = async (c: number) => {
      const r = c % 2 ? a : b;
      for (let i = 0; !stop; i++) {
        const roll = (c * 7 + i * 13) % 10;
        const id = ids[(c + i) % ids.length]!;
        let input: RegistryInput;
        if (roll < 3) input = { kind: 'register', id, value: `${c}-${i}` };
        else if (roll < 4) input = { kind: 'deregister', id };
        else if (roll < 6) input = { kind: 'heartbeat', id };
        else input = { kind: 'query', id };
        const call0 = performance.now() - t0;
        let output: RegistryOutput;
        try {
          output = await perform(r, ns, input);
        } catch {
          output = { kind: 'unknown' };
        }
        history.push({ call: call0, ret: performance.now() - t0, input, output });
      }
    };
    const clients = [0, 1, 2, 3].map((c) => runClient(c));
    await waitFor('traffic', 20_000, async () => (history.length > 20 ? true : undefined));
    const leader = await cluster.leader();
    await cluster.kill(leader);
    await cluster.waitForLeader(60_000);
    const n = history.length;
    await waitFor('traffic after kill', 30_000, async () => (history.filter((h, i) => i >= n && h.output.kind !== 'unknown').length > 20 ? true : undefined));
    await cluster.restart(leader);
    await cluster.waitForLeader(60_000);
    const paused = await cluster.leader();
    cluster.stop(paused);
    try {
      const pausedId = cluster.member(paused).id;
      await waitFor('a new leader while the old one is paused', 60_000, async () => {
        const others = cluster.members.filter((m) => m.state === 'running').map((m) => m.name);
        const s = await Promise.all(others.map((o) => cluster.status(o)));
        return s.every((x) => x && x.leader && x.leader !== pausedId) ? true : undefined;
      });
      const m = history.length;
      await waitFor('traffic while paused', 60_000, async () => (history.filter((h, i) => i >= m && h.output.kind !== 'unknown').length > 10 ? true : undefined));
    } finally {
      cluster.cont(paused);
    }
    await cluster.waitForLeader(60_000);
    const k = history.length;
    await waitFor('traffic after resume', 30_000, async () => (history.length > k + 10 ? true : undefined));
    stop = true;
    await Promise.all(clients);
    // Every operation touches one instance (queries select it by label), so by the locality of
    // linearizability the history can be checked per instance, as porcupine partitions it.
    for (const id of ids) {
      const part = prepareHistory(history.filter((h) => h.input.id === id));
      const verdict = checkLinearizable(registryModel, part);
      expect(verdict.timedOut, `instance ${id}: ${part.length} ops`).toBeFalsy();
      // On failure the history itself is the evidence: print it (call/return ms, input, output).
      const dump = () => part.map((o) => `${o.call.toFixed(1)}-${o.ret.toFixed(1)} ${JSON.stringify(o.input)} → ${JSON.stringify(o.output)}`).join('\n');
      expect(verdict.linearizable, `instance ${id}: history of ${part.length} ops:\n${verdict.linearizable ? '' : dump()}`).toBe(true);
    }
    expect(history.filter((h) => h.output.kind !== 'unknown').length).toBeGreaterThan(50);
  });

  it('REC-001: kill -9 every member right after an acknowledged register; nothing is lost', { timeout: 120_000 }, async () => {
    const r = await register(a, 'rec', 'acked', { leaseTtlSeconds: 300 });
    expect(r.body.code).toBe('ok');
    const names = cluster.members.filter((m) => m.state === 'running').map((m) => m.name);
    await Promise.all(names.map((n) => cluster.kill(n)));
    for (const n of names) await cluster.restart(n);
    await cluster.waitForLeader(60_000);
    await waitFor('the acknowledged instance', 60_000, async () => {
      const q = await query(b, 'namespace=rec').catch(() => undefined);
      return q?.body.data?.instances?.some((i: Instance) => i.instanceId === 'acked' && i.revision === r.body.data.revision) ? true : undefined;
    });
  });
});

async function perform(r: RunningRegistry, ns: string, input: RegistryInput): Promise<RegistryOutput> {
  const timeout = 6000;
  const id = (x: string) => ({ namespace: ns, service: SERVICE, instanceId: x });
  const classify = (res: { status: number; body: { code: string } }): RegistryOutput => {
    if (res.body.code === 'ok') return { kind: 'ok' };
    if (res.body.code === 'not_found') return { kind: 'not_found' };
    return { kind: 'unknown' };
  };
  switch (input.kind) {
    case 'register':
      return classify(await call(r.httpUrl, 'POST', '/api/v1/registry/register', regBody(ns, input.id, { labels: { id: input.id, v: input.value }, leaseTtlSeconds: 300 }), {}, timeout));
    case 'deregister':
      return classify(await call(r.httpUrl, 'POST', '/api/v1/registry/deregister', id(input.id), {}, timeout));
    case 'heartbeat':
      return classify(await call(r.httpUrl, 'POST', '/api/v1/registry/heartbeat', id(input.id), {}, timeout));
    case 'query': {
      const q = await call(r.httpUrl, 'GET', `/api/v1/registry/instances?namespace=${ns}&service=${SERVICE}&selector=id=${input.id}`, undefined, {}, timeout);
      if (q.body.code !== 'ok') return { kind: 'unknown' };
      return { kind: 'instances', entries: q.body.data.instances.map((i: Instance) => `${i.instanceId}=${i.labels.v}`).sort() };
    }
  }
}
