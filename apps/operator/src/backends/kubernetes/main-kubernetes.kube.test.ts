import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type WatchEvent, createHttpStore } from '@orrery/store';
import { type SpawnedServer, spawnServer, until } from '../../testing/spawn-server.ts';
import { adminKubeConfig, createNamespace, installCrds, REPO_ROOT, testEnv } from '@orrery/kube-testenv';
import { KubeClient, type KubeObject } from './kube-client.ts';

const bin = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'orrery-operator.mjs');
let client: KubeClient;
let leaseNs = '';
let ns = '';
const disposers: Array<() => Promise<void>> = [];
let proc: SpawnedServer | undefined;
const replicas: SpawnedServer[] = [];
const tmpDirs: string[] = [];

const GV = 'orrery.dev/v1alpha1';
const get = (apiVersion: string, kind: string, namespace: string, name: string) => client.get<KubeObject>(apiVersion, kind, namespace, name);
/** The operator binary, as the cluster admin (RBAC as the chart's ServiceAccount is the chart tests' concern). */
const kubeArgs = () => ['--backend', 'kubernetes', '--kubeconfig', testEnv().adminKubeconfig, '--lease-namespace', leaseNs];

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  for (const prefix of ['op-lease', 'op-fns']) {
    const n = await createNamespace(prefix);
    disposers.push(n.dispose);
    if (prefix === 'op-lease') leaseNs = n.name;
    else ns = n.name;
  }
});
afterAll(async () => {
  await proc?.stop('SIGKILL');
  for (const r of replicas) await r.stop('SIGKILL');
  for (const d of tmpDirs) rmSync(d, { recursive: true, force: true });
  for (const d of disposers) await d();
});

describe('orrery-operator --backend kubernetes (real API server)', () => {
  it('leads, reconciles, answers admission and releases its lease on SIGTERM', { timeout: 90_000 }, async () => {
    proc = await spawnServer(bin, [
      ...kubeArgs(), '--port', '0', '--webhook-port', '0', '--identity', 'op-1', '--namespace', ns,
      '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
    ]);
    const health = await until(async () => (await fetch(`${proc!.url}/healthz`)).json() as Promise<{ leader: boolean; identity: string }>, (h) => h.leader, 30_000, 'leadership');
    expect(health.identity).toBe('op-1');
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'proc', namespace: ns }, spec: { template: { source: { inline: 'x' } } } });
    await until(() => get('apps/v1', 'Deployment', ns, 'proc-00001-deployment'), Boolean, 30_000, 'deployment');
    // GET /metrics, without a token: this replica leads and has reconciled the Function.
    const metrics = await until(async () => (await fetch(`${proc!.url}/metrics`)).text(), (t) => /^orrery_operator_reconcile_total\{kind="Function",result="success"\} [1-9]/m.test(t), 30_000, 'reconcile counted');
    expect(metrics).toMatch(/^orrery_operator_leader 1$/m);
    const webhook = /webhook (http:\/\/\S+)/.exec(proc.output())![1]!;
    const res = await fetch(`${webhook}/validate`, {
      method: 'POST',
      body: JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'x', kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' }, operation: 'CREATE', namespace: 'default', object: { apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'BAD' }, spec: { template: { source: {} } } } },
      }),
    });
    expect(((await res.json()) as { response: { allowed: boolean } }).response.allowed).toBe(false);
    // A review for a namespace this operator does not manage (it watches --namespace) is judged by
    // its caches alone: the webhook reads nothing there, so it cannot be used to look into it.
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'shared-infinite', namespace: leaseNs }, spec: { allowedFunctionsPerContainer: 'infinite' } });
    await client.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'owner', namespace: leaseNs }, spec: { template: { source: { inline: 'x' } }, state: { keyspace: 'carts' } } });
    const judged = async (name: string, spec: Record<string, unknown>) => {
      const answer = await fetch(`${webhook}/validate`, {
        method: 'POST',
        body: JSON.stringify({
          apiVersion: 'admission.k8s.io/v1',
          kind: 'AdmissionReview',
          request: { uid: name, kind: { group: 'orrery.dev', version: 'v1alpha1', kind: 'Function' }, operation: 'CREATE', namespace: leaseNs, name, object: { apiVersion: GV, kind: 'Function', metadata: { name }, spec } },
        }),
      });
      return ((await answer.json()) as { response: { allowed: boolean } }).response;
    };
    expect((await judged('stateful', { template: { environment: 'shared-infinite', source: { inline: 'x' } }, state: {} })).allowed).toBe(true);
    expect((await judged('second', { template: { source: { inline: 'x' } }, state: { keyspace: 'carts' } })).allowed).toBe(true);
    expect(await proc.stop('SIGTERM')).toBe(0);
    proc = undefined;
    // Released on the way out: holderIdentity cleared, so a successor need not wait for expiry.
    expect(((await get('coordination.k8s.io/v1', 'Lease', leaseNs, 'orrery-operator'))!.spec as { holderIdentity?: string }).holderIdentity ?? '').toBe('');
  });

  it('every replica serves the resource store (/v1/store, token-protected) and the admin API (/trpc) over the CRDs', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'orrery-k8s-api-'));
    tmpDirs.push(dir);
    writeFileSync(join(dir, 'store-token'), 'store-secret\n');
    writeFileSync(join(dir, 'admin-token'), 'admin-secret-0123456789\n');
    // A namespace of its own: the first test's Function must not show in this one's lists.
    const own = await createNamespace('op-api');
    disposers.push(own.dispose);
    ns = own.name;
    const start = (identity: string) =>
      spawnServer(bin, [
        ...kubeArgs(), '--port', '0', '--identity', identity, '--lease-name', 'api-test', '--namespace', ns,
        '--lease-duration-seconds', '2', '--renew-deadline-seconds', '1', '--retry-period-seconds', '0.2',
        '--store-token-file', join(dir, 'store-token'), '--admin-token-file', join(dir, 'admin-token'), '--runtime-image', 'registry.example/orrery/runtime:9.9.9',
        '--autoscaler-stable-window', '2s', '--autoscaler-tick', '100ms',
      ], { DATABASE_URL: '', POD_IP: '' });
    replicas.push(await start('api-a'), await start('api-b'));
    const health = async (r: SpawnedServer) => (await fetch(`${r.url}/healthz`)).json() as Promise<{ leader: boolean }>;
    await until(async () => (await Promise.all(replicas.map(health))).filter((h) => h.leader).length, (n) => n === 1, 30_000, 'one leader');
    const follower = (await health(replicas[0]!)).leader ? replicas[1]! : replicas[0]!;

    // the router's and statesvc's client, pointed at a replica that does not lead
    const store = createHttpStore(follower.url, { token: 'store-secret', reconnectMs: 100 });
    const seen: WatchEvent[] = [];
    const w = store.watch('Function', { namespace: ns }, (e) => seen.push(e));
    await store.apply({ apiVersion: GV, kind: 'Function', metadata: { name: 'via-store', namespace: ns }, spec: { template: { source: { inline: 'x' } } } });
    // the write reached the API server, so the leader reconciles it (with the configured runtime image)
    const deployment = await until(() => get('apps/v1', 'Deployment', ns, 'via-store-00001-deployment'), Boolean, 30_000, 'deployment');
    expect((deployment!.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image).toBe('registry.example/orrery/runtime:9.9.9');
    // and the leader's status write comes back through the follower's watch
    await until(() => seen.some((e) => (e.object.status as { latestCreatedRevision?: string } | undefined)?.latestCreatedRevision === 'via-store-00001'), Boolean, 30_000, 'status via watch');
    w.close();
    const revisions = await store.list('Revision', { namespace: ns, labels: { 'orrery.dev/function': 'via-store' } });
    expect(revisions.items.map((r) => r.metadata.name)).toEqual(['via-store-00001']);

    expect((await fetch(`${follower.url}/v1/store/Function`)).status).toBe(401);
    expect((await fetch(`${follower.url}/v1/store/Function`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);

    const trpc = await fetch(`${follower.url}/trpc/functions.list?input=${encodeURIComponent(JSON.stringify({ namespace: ns }))}`, { headers: { authorization: 'Bearer admin-secret-0123456789' } });
    expect(trpc.status).toBe(200);
    const body = (await trpc.json()) as { result: { data: { items: Array<{ metadata: { name: string } }> } } };
    expect(body.result.data.items.map((f) => f.metadata.name)).toEqual(['via-store']);
    expect((await fetch(`${follower.url}/trpc/functions.list`)).status).toBe(401);

    // Routers report to whichever replica the Service picks; the follower forwards to the leader's KPA.
    const stats = (token?: string) =>
      fetch(`${follower.url}/v1/autoscaler/stats`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ router: 'router-a', revisions: [{ namespace: ns, function: 'via-store', revision: 'via-store-00001', averageConcurrency: 280, requests: 280, windowMs: 1000 }] }),
      });
    expect((await stats()).status).toBe(401);
    expect((await stats('wrong')).status).toBe(401);
    const forwarded = await stats('store-secret');
    expect(forwarded.status).toBe(202);
    expect(await forwarded.json()).toMatchObject({ ok: true });
    const replicasOf = async () => ((await get('apps/v1', 'Deployment', ns, 'via-store-00001-deployment'))?.spec as { replicas?: number } | undefined)?.replicas;
    // 280 concurrent at a target of 70 per worker: the leader's KPA asks for 4 workers.
    // A report still in flight when the replicas stop fails; that is not this test's concern.
    const load = setInterval(() => void stats('store-secret').then((r) => r.arrayBuffer()).catch(() => undefined), 100);
    try {
      await until(replicasOf, (n) => n === 4, 30_000, 'scaled by the leader from forwarded stats');
    } finally {
      clearInterval(load);
    }
    const lease = (await get('coordination.k8s.io/v1', 'Lease', leaseNs, 'api-test'))!;
    const leader = replicas.find((r) => r !== follower)!;
    expect((lease.metadata.annotations)?.['orrery.dev/leader-url']).toBe(leader.url);
  });
});
