/**
 * KubernetesPoolExecutor against the fake-apiserver, with the fake-kubelet running the pool
 * Deployment's pods as REAL orrery-runtime processes (from the rendered pod spec: pool mode,
 * the mounted specialize token, --registry-url). The fakes are minimal (see their headers): pods
 * are on 127.0.0.1 with remapped ports, which `podAddress` maps; a small recorder stands in for
 * orrery-registry's register/deregister calls.
 */
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Environment, type Revision, parseResource } from '@orrery/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SpecializeError } from '../../executors/pool-executor.ts';
import { runtimeCommand } from '../local/runtime-bundle.ts';
import { KubeClient, type KubeObject, kubeConfigFor } from './kube-client.ts';
import { KubernetesPoolExecutor, SPECIALIZED_COMPONENT } from './kube-pool-executor.ts';
import { COMPONENT_LABEL, FUNCTION_LABEL, REVISION_LABEL } from './render/labels.ts';
import { renderPoolDeployment, specializeSecretName } from './render/pool.ts';
import { type FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';
import { FakeKubelet } from './testing/fake-kubelet.ts';
import { until as pollUntil } from '../../testing/spawn-server.ts';

const NS = 'fns';
const IDLE_MS = 6000;
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}
const env = parse<Environment>({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS, uid: 'env-uid' }, spec: { poolSize: 2 } });
const revision = (fn: string, n: number, inline = 'export default (req, ctx) => new Response(`${ctx.revision} pid ${process.pid}`)'): Revision =>
  parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `${fn}-0000${n}`, namespace: NS, uid: `uid-${fn}-${n}`, labels: { [FUNCTION_LABEL]: fn } },
    spec: { function: fn, template: { source: { inline }, executor: 'pool', environment: 'nodejs' } },
  });

let fake: FakeApiServer;
let client: KubeClient;
let kubelet: FakeKubelet;
let executor: KubernetesPoolExecutor;
let registry: Server;
const registryCalls: Array<{ path: string; body: Any }> = [];

const pods = () => fake.list('v1', 'Pod').filter((p) => p.metadata.namespace === NS);
const poolPods = () => pods().filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool');
const podsOf = (rev: string) => pods().filter((p) => p.metadata.labels?.[REVISION_LABEL] === rev);
const get = async (address: string, path = '/') => (await fetch(`http://${address}${path}`)).text();

/** Polls until `f` gives a truthy value (the operator tests' shared poller). */
const until = <T,>(f: () => T | Promise<T>, what: string, timeoutMs = 30_000): Promise<NonNullable<T>> => pollUntil(f, Boolean, timeoutMs, what) as Promise<NonNullable<T>>;

beforeAll(async () => {
  registry = createServer((req, res) => {
    let text = '';
    req.on('data', (d: Buffer) => (text += d.toString()));
    req.on('end', () => {
      registryCalls.push({ path: req.url!, body: JSON.parse(text || '{}') as Any });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ code: 'ok', message: '', data: {}, requestId: '1' }));
    });
  });
  await new Promise<void>((r) => registry.listen(0, '127.0.0.1', r));
  const registryUrl = `http://127.0.0.1:${(registry.address() as AddressInfo).port}`;

  fake = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: fake.url }));
  kubelet = new FakeKubelet(fake, { runtime: await runtimeCommand(), deploymentLabels: { [COMPONENT_LABEL]: 'pool' } });
  executor = new KubernetesPoolExecutor({ client, namespace: NS, idleTimeoutMs: IDLE_MS, podAddress: (p: KubeObject) => kubelet.addressOf(p) });
  await executor.start();
  // What the operator's Environment reconcile does: the token Secret first, then the pool.
  await executor.ensureSpecializeSecret(env);
  await client.apply(renderPoolDeployment(env, undefined, { registryUrls: [registryUrl] }));
  await kubelet.start();
  await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pool pods', 60_000);
}, 90_000);

afterAll(async () => {
  await executor?.stop();
  await kubelet?.stop();
  await fake?.close();
  registry?.closeAllConnections();
  await new Promise((r) => registry?.close(r));
}, 60_000);

describe('KubernetesPoolExecutor (fake-apiserver + fake-kubelet, real runtime processes)', () => {
  it('keeps one specialize token: the Secret is created once and re-reads give the same token', async () => {
    const secret = fake.get('v1', 'Secret', NS, specializeSecretName('nodejs'))!;
    const token = Buffer.from((secret.data as Record<string, string>).token!, 'base64').toString();
    expect(token.length).toBeGreaterThanOrEqual(40);
    expect(await executor.ensureSpecializeSecret(env)).toBe(token);
    expect(fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/secrets'))).toHaveLength(1);
  });

  it('a generic pod refuses specialize without the token or with a wrong one (401 from the runtime)', async () => {
    const address = kubelet.addressOf(poolPods()[0]!);
    const body = JSON.stringify({ namespace: NS, function: 'evil', revision: 'evil-00001', source: { inline: 'export default () => new Response("owned")' } });
    for (const authorization of [undefined, 'Bearer not-the-token']) {
      const res = await fetch(`http://${address}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) }, body });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    expect(await (await fetch(`http://${address}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
  });

  it('specializes a warm pod (claimed by labels), the function answers, it registers, and the pool refills', { timeout: 60_000 }, async () => {
    const before = new Set(poolPods().map((p) => p.metadata.name));
    const created = kubelet.created;
    const rev = revision('hello', 1);
    const { address, timing } = await executor.specialize(rev);
    expect(timing?.workerMs).toBeGreaterThanOrEqual(0);
    expect(await get(address)).toMatch(/^hello-00001 pid \d+$/);

    const [pod] = podsOf('hello-00001');
    expect(before.has(pod!.metadata.name)).toBe(true); // a warm pod, not a new one
    expect(pod!.metadata.labels).toMatchObject({ [COMPONENT_LABEL]: SPECIALIZED_COMPONENT, [FUNCTION_LABEL]: 'hello', [REVISION_LABEL]: 'hello-00001', 'orrery.dev/environment': 'nodejs' });
    expect(pod!.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Revision', name: 'hello-00001', uid: 'uid-hello-1', controller: true })]);
    // The claim was a replace guarded by the resourceVersion the cache held.
    const claim = fake.requests.filter((r) => r.method === 'PUT' && r.path.endsWith(`/pods/${pod!.metadata.name}`)).at(-1)!;
    expect((JSON.parse(claim.body) as Any).metadata.resourceVersion).toMatch(/^\d+$/);

    // Routers find it through the registry, under its revision, at the pod's address.
    const reg = await until(() => registryCalls.find((c) => c.path === '/api/v1/registry/register' && c.body.role === 'hello-00001'), 'registration');
    expect(reg.body).toMatchObject({ application: 'hello', instanceId: pod!.metadata.name, endpoints: [{ host: '127.0.0.1', port: Number(address.split(':')[1]) }], labels: { 'orrery.dev/executor': 'pool' } });

    // The pool Deployment's ReplicaSet (fake-kubelet) replaced the claimed pod: two warm pods again.
    await until(() => kubelet.created > created && executor.warmCounts()[`${NS}/nodejs`] === 2, 'pool refilled');
    expect(executor.readySpecialized(`${NS}/hello-00001`)).toBe(1);

    // A second request reuses the specialized pod: no new specialization.
    const n = executor.specializations;
    expect((await executor.specialize(rev)).address).toBe(address);
    expect(executor.specializations).toBe(n);
  });

  it('concurrent cold requests for one revision share one pod and one specialize call', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    const n = executor.specializations;
    const rev = revision('shared', 1);
    const answers = await Promise.all(Array.from({ length: 6 }, () => executor.specialize(rev)));
    expect(new Set(answers.map((a) => a.address)).size).toBe(1);
    expect(executor.specializations).toBe(n + 1);
    expect(podsOf('shared-00001')).toHaveLength(1);
    expect(await get(answers[0]!.address)).toMatch(/^shared-00001 pid/);
  });

  it('a 409 on the claim (someone else changed the pod) moves on to another pod', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    const conflicts = executor.claimConflicts;
    const mark = fake.requests.length;
    fake.failNext('PUT', `/namespaces/${NS}/pods/`, 409, 'Conflict');
    const { address } = await executor.specialize(revision('contended', 1));
    expect(await get(address)).toMatch(/^contended-00001 pid/);
    const puts = fake.requests.slice(mark).filter((r) => r.method === 'PUT' && r.path.includes('/pods/'));
    expect(puts).toHaveLength(2);
    expect(puts[0]!.path).not.toBe(puts[1]!.path);
    expect(executor.claimConflicts).toBe(conflicts + 1);
    // The pod whose claim failed is still in the pool.
    const firstName = puts[0]!.path.split('/').at(-1)!;
    expect(fake.get('v1', 'Pod', NS, firstName)?.metadata.labels?.[COMPONENT_LABEL]).toBe('pool');
  });

  it('a load error is a 422 and the pod is not reused', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    const err = await executor.specialize(revision('broken', 1, 'export default = syntax error')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecializeError);
    expect((err as SpecializeError).status).toBe(422);
    await until(() => podsOf('broken-00001').length === 0, 'the failed pod deleted');
  });

  it('scale follows the KPA up and down for a pooled revision', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    const rev = revision('scaled', 1);
    await executor.specialize(rev);
    executor.scale(rev, 2);
    await until(() => executor.readySpecialized(`${NS}/scaled-00001`) === 2, 'two specialized pods');
    const claimedAt = (p: { metadata: Record<string, unknown> }) => (p.metadata.annotations as Record<string, string>)['orrery.dev/claimed-at']!;
    const newest = podsOf('scaled-00001').sort((a, b) => (claimedAt(a) < claimedAt(b) ? 1 : -1))[0]!;
    executor.scale(rev, 1);
    await until(() => podsOf('scaled-00001').length === 1, 'back to one');
    expect(podsOf('scaled-00001')[0]!.metadata.name).not.toBe(newest.metadata.name);
  });

  it('a rotated token: a pod that refuses the cached one (401) is deleted, the token re-read, the call succeeds', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    // Someone else (kubectl, a GitOps tool) recreates the Secret: the executor's cached token is stale.
    const rotated = 'rotated-by-someone-else-0123456789abcdef';
    const secret = fake.get('v1', 'Secret', NS, specializeSecretName('nodejs'))!;
    await client.delete('v1', 'Secret', NS, specializeSecretName('nodejs'));
    fake.put({ ...secret, metadata: { name: secret.metadata.name, namespace: NS, labels: secret.metadata.labels }, data: { token: Buffer.from(rotated).toString('base64') } });
    // Roll the pool: the new pods mount the new token; the executor still holds the old one.
    for (const p of poolPods()) await client.delete('v1', 'Pod', NS, p.metadata.name);
    await until(() => poolPods().length === 2 && executor.warmCounts()[`${NS}/nodejs`] === 2, 'a rolled pool');
    const n = executor.specializations;
    const { address } = await executor.specialize(revision('rotated', 1));
    expect(await get(address)).toMatch(/^rotated-00001 pid/);
    expect(executor.specializations).toBe(n + 2); // one 401, one success
    const podToken = await (await import('node:fs/promises')).readFile(kubelet.processOf(NS, podsOf('rotated-00001')[0]!.metadata.name)!.launch.mounts['/var/orrery/specialize']! + '/token', 'utf8');
    expect(podToken).toBe(rotated);
  });

  it('idle specialized pods are deleted (their runtime deregisters); a new request specializes again', { timeout: 60_000 }, async () => {
    await until(() => executor.warmCounts()[`${NS}/nodejs`] === 2, 'two warm pods');
    const rev = revision('idle', 1);
    const started = Date.now();
    await executor.specialize(rev);
    const pod = podsOf('idle-00001')[0]!;
    const proc = kubelet.processOf(NS, pod.metadata.name)!;
    expect(proc.running).toBe(true);
    await until(() => podsOf('idle-00001').length === 0, 'idle pod reaped', IDLE_MS * 4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS);
    await until(() => !proc.running, 'process stopped');
    expect(registryCalls.some((c) => c.path === '/api/v1/registry/deregister' && c.body.instanceId === pod.metadata.name)).toBe(true);
    expect(executor.readySpecialized(`${NS}/idle-00001`)).toBe(0);
    const n = executor.specializations;
    const { address } = await executor.specialize(rev);
    expect(await get(address)).toMatch(/^idle-00001 pid/);
    expect(executor.specializations).toBe(n + 1);
  });
});
