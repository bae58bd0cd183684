/**
 * The Kubernetes operator's pool executor end to end, on the fake-apiserver (no real API server
 * can run here) with the fake-kubelet running the pool Deployment's pods as REAL orrery-runtime
 * processes: the Environment reconcile creates the specialize token Secret before the pool, the
 * routers' cold path `/v1/executor/specialize` is served by the leader's operator, a pooled
 * revision's readiness and scale follow its specialized pods, and the KPA scales it.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KPA_DEFAULTS } from '../../autoscaler/kpa-settings.ts';
import { until as pollUntil } from '../../testing/spawn-server.ts';
import { runtimeCommand } from '../local/runtime-bundle.ts';
import { KubernetesFunctionOperator } from './function-operator.ts';
import { KubeClient, type KubeObject, kubeConfigFor } from './kube-client.ts';
import { SPECIALIZED_COMPONENT } from './kube-pool-executor.ts';
import { COMPONENT_LABEL, REVISION_LABEL } from './render/labels.ts';
import { specializeSecretName } from './render/pool.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';
import { FakeKubelet } from './testing/fake-kubelet.ts';

const NS = 'pooled';
const GV = 'orrery.dev/v1alpha1';
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

let fake: FakeApiServer;
let client: KubeClient;
let kubelet: FakeKubelet;
let op: KubernetesFunctionOperator;
let control: Server;
let controlUrl: string;
let registry: Server;
let registryUrl: string;
const registered: Any[] = [];

const until = <T,>(f: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<Exclude<NonNullable<T>, false>> => pollUntil(f, Boolean, timeoutMs, what) as Promise<Exclude<NonNullable<T>, false>>;
const pods = () => fake.list('v1', 'Pod').filter((p) => p.metadata.namespace === NS && !p.metadata.deletionTimestamp);
const podsOf = (rev: string) => pods().filter((p) => p.metadata.labels?.[REVISION_LABEL] === rev);
const warm = () => pods().filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && (p.status as Any | undefined)?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True')).length;
const revStatus = (name: string) => (fake.get(GV, 'Revision', NS, name)?.status ?? {}) as Any;
const readyCondition = (name: string) => (revStatus(name).conditions as Any[] | undefined)?.find((c) => c.type === 'Ready');

async function specialize(body: Record<string, string>): Promise<{ status: number; json: Any }> {
  const res = await fetch(`${controlUrl}/v1/executor/specialize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Any };
}

const fnObj = (name: string, executor: 'pool' | 'deploy', code: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: NS },
  spec: { template: { source: { inline: code }, executor, environment: 'nodejs', containerConcurrency: 1 } },
});

beforeAll(async () => {
  registry = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      if (req.url === '/api/v1/registry/register') registered.push(JSON.parse(text) as Any);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ok', message: '', data: {}, requestId: '1' }));
    });
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;

  fake = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: fake.url }));
  kubelet = new FakeKubelet(fake, { runtime: await runtimeCommand(), deploymentLabels: { [COMPONENT_LABEL]: 'pool' } });
  await kubelet.start();
  op = new KubernetesFunctionOperator({
    client,
    namespace: NS,
    registryUrls: [registryUrl],
    kpa: { ...KPA_DEFAULTS, stableWindowMs: 1000, scaleToZeroGracePeriodMs: 300, tickMs: 50 },
    pool: { idleTimeoutMs: 3000, podAddress: (p) => kubelet.addressOf(p) },
  });
  await op.start();
  control = createServer((req, res) => {
    void op.handleControl(req, res).then((handled) => {
      if (!handled) res.writeHead(404).end('{}');
    });
  });
  await new Promise<void>((r) => control.listen(0, '127.0.0.1', r));
  controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
  await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 2 } });
}, 60_000);

afterAll(async () => {
  await op?.stop();
  await kubelet?.stop();
  control?.closeAllConnections();
  control?.close();
  registry?.closeAllConnections();
  registry?.close();
  await fake?.close();
}, 60_000);

describe('pooled revisions on the Kubernetes operator (fake-apiserver + fake-kubelet, real runtime processes)', () => {
  it('the Environment reconcile creates the specialize token Secret, then a pool that registers workers and warms up', { timeout: 60_000 }, async () => {
    await until(() => warm() === 2, 'two warm pool pods', 45_000);
    const secret = fake.get('v1', 'Secret', NS, specializeSecretName('nodejs'));
    expect(Buffer.from((secret?.data as Any).token as string, 'base64').toString().length).toBeGreaterThanOrEqual(40);
    const posts = fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/secrets'));
    expect(posts).toHaveLength(1);
    const args = ((fake.get('apps/v1', 'Deployment', NS, 'orrery-pool-nodejs')!.spec as Any).template.spec.containers[0].args as string[]).join(' ');
    expect(args).toContain(`--registry-url ${registryUrl}`);
    expect(args).toContain('--specialize-token-file');
    await until(() => (fake.get(GV, 'Environment', NS, 'nodejs')?.status as Any | undefined)?.readyPoolWorkers === 2, 'Environment status readyPoolWorkers 2');
  });

  it('a pooled revision is Ready before any pod is specialized; the cold path specializes one and the function answers', { timeout: 60_000 }, async () => {
    await client.apply(fnObj('greet', 'pool', 'export default (req, ctx) => new Response(`hello from ${ctx.revision}`)'));
    const cond = await until(() => readyCondition('greet-00001')?.status === 'True' && readyCondition('greet-00001'), 'greet-00001 Ready');
    expect(cond.reason).toBe('PoolExecutor');
    expect(podsOf('greet-00001')).toHaveLength(0);

    const { status, json } = await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' });
    expect(status).toBe(200);
    expect(await (await fetch(`http://${json.address as string}/`)).text()).toBe('hello from greet-00001');
    const [pod] = podsOf('greet-00001');
    expect(pod!.metadata.labels?.[COMPONENT_LABEL]).toBe(SPECIALIZED_COMPONENT);
    // Routers find it through the registry, under its revision.
    await until(() => registered.some((r) => r.role === 'greet-00001' && r.instanceId === pod!.metadata.name), 'registered under its revision');
    // The status follows the specialized pod (the pod informer queues the revision).
    const st = await until(() => revStatus('greet-00001').readyWorkers === 1 && revStatus('greet-00001'), 'readyWorkers 1');
    expect(readyCondition('greet-00001')).toMatchObject({ status: 'True', reason: 'WorkersReady' });
    expect(st.autoscalerMode).toBeDefined();
    // The pool refills after the claim.
    await until(() => warm() === 2, 'pool refilled', 45_000);
  });

  it('the cold path refuses what it must: unknown revisions 404, deploy revisions 409, bad bodies 400', { timeout: 30_000 }, async () => {
    expect(await specialize({ namespace: NS, function: 'greet', revision: 'greet-00099' })).toMatchObject({ status: 404, json: { code: 'revision_not_found' } });
    expect(await specialize({ namespace: NS, function: 'other', revision: 'greet-00001' })).toMatchObject({ status: 404, json: { code: 'revision_not_found' } });
    await client.apply(fnObj('steady', 'deploy', 'export default () => new Response("d")'));
    await until(() => fake.get(GV, 'Revision', NS, 'steady-00001'), 'steady-00001 created');
    await until(async () => (await specialize({ namespace: NS, function: 'steady', revision: 'steady-00001' })).status === 409, 'deploy revision answers 409');
    expect(await specialize({ namespace: NS })).toMatchObject({ status: 400, json: { code: 'invalid_body' } });
  });

  it('the KPA scales a pooled revision: load specializes a second pod, idleness lets the reaper take them', { timeout: 90_000 }, async () => {
    await until(() => warm() === 2, 'two warm pods', 45_000);
    // The first pod comes through the cold path (as on the local backend, scale only adds to it).
    expect((await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' })).status).toBe(200);
    // Sustained concurrency 1.2 at a target of 0.7 per worker (containerConcurrency 1 × 70 %) → two workers.
    const load = setInterval(
      () => op.autoscaler.recordStats('router-a', [{ namespace: NS, function: 'greet', revision: 'greet-00001', averageConcurrency: 1.2, requests: 20, windowMs: 1000 }]),
      50,
    );
    try {
      await until(() => op.pool.readySpecialized(`${NS}/greet-00001`) === 2, 'two specialized pods', 45_000);
      await until(() => revStatus('greet-00001').readyWorkers === 2, 'status readyWorkers 2');
    } finally {
      clearInterval(load);
    }
    // No more demand: desired falls to zero and the idle reaper (3 s) deletes the specialized pods.
    await until(() => podsOf('greet-00001').length === 0, 'specialized pods reaped', 45_000);
    const st = await until(() => revStatus('greet-00001').readyWorkers === 0 && revStatus('greet-00001'), 'status readyWorkers 0');
    expect(st.desiredScale).toBe(0);
    expect(readyCondition('greet-00001')?.status).toBe('True'); // still servable on demand
  });

  it('a revision that leaves the traffic releases its specialized pods', { timeout: 60_000 }, async () => {
    await until(() => warm() >= 1, 'a warm pod', 45_000);
    const first = await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' });
    expect(first.status).toBe(200);
    await until(() => podsOf('greet-00001').length === 1, 'greet-00001 specialized');
    // A new template makes greet-00002 the newest, and all traffic follows the latest ready revision.
    await client.apply({ ...fnObj('greet', 'pool', 'export default () => new Response("v2")') });
    await until(() => podsOf('greet-00001').length === 0, 'greet-00001 released', 45_000);
    const second = await specialize({ namespace: NS, function: 'greet', revision: 'greet-00002' });
    expect(second.status).toBe(200);
    expect(await (await fetch(`http://${second.json.address as string}/`)).text()).toBe('v2');
  });
});
