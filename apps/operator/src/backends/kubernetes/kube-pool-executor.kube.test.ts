/**
 * KubernetesPoolExecutor against the real control plane: the pool Deployment (as rendered) is run
 * by the real Deployment and ReplicaSet controllers, its pods by the process kubelet (the init
 * container derives the pod's specialize verifier from the mounted pool key; the runtime
 * container runs `orrery-runtime --mode pool`), each in its own network namespace at its own IP.
 * The executor claims pods with real guarded replaces, specializes them over their pod IPs with
 * their single-use nonces, and the specialized runtimes register in a real orrery-registry (on the
 * node address) with the revision's registration credential. Claimed pods are owned by real
 * Revisions, so the real garbage collector would take any pod whose owner did not exist.
 */
import { type Environment, type Revision, parseResource } from '@orrery/spec';
import { deriveSpecializeNonce } from '@orrery/auth';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, auditEvents, containerPid, createNamespace, eventually, installCrds, podDir, REPO_ROOT } from '@orrery/kube-testenv';
import { SpecializeError } from '../../pool-executor/specialization.ts';
import { registrationCredentials, revisionServiceName } from '../../reconcile/registration-credential.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { CLAIMED_AT_ANNOTATION, KubernetesPoolExecutor, SPECIALIZED_COMPONENT } from './kube-pool-executor.ts';
import { COMPONENT_LABEL, FUNCTION_LABEL, REVISION_LABEL } from './render/labels.ts';
import { SPECIALIZE_TOKEN_KEY, renderPoolChildren, specializeSecretName } from './render/pool.ts';
import { type HostRegistry, defaultServiceAccount, startHostRegistry } from './testing/kube-fixtures.ts';

const GV = 'orrery.dev/v1alpha1';
/** Long enough that a pool refill on a busy machine (several seconds per pod) does not reap a pod a test still uses. */
const IDLE_MS = 12_000;
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Pod = KubeObject & { spec?: Any; status?: Any };

/** A client whose next pod replaces each lose to a real concurrent writer (the API server answers 409). */
class RivalledClient extends KubeClient {
  rivalNext = 0;
  rivalled: string[] = [];
  override async replace<T extends KubeObject>(obj: T): Promise<T> {
    if (this.rivalNext > 0 && obj.kind === 'Pod') {
      this.rivalNext--;
      this.rivalled.push(obj.metadata.name);
      // Someone else (a label controller, kubectl) changes the pod first: our resourceVersion is stale.
      const rival = { apiVersion: 'v1', kind: 'Pod', metadata: { name: obj.metadata.name, namespace: obj.metadata.namespace, annotations: { 'example.com/rival': 'was-here' } } };
      await this.objects.patch(rival, undefined, undefined, 'rival', undefined, PatchStrategy.MergePatch);
    }
    return super.replace(obj);
  }
}

let NS = '';
let dispose: () => Promise<void> = async () => {};
let client: RivalledClient;
let executor: KubernetesPoolExecutor;
let registry: HostRegistry | undefined;
let env: Environment;
let adminUser = '';

function parse<T>(obj: unknown): T {
  // As JSON, as the operator's informers see it (client-node turns timestamps into Dates).
  const r = parseResource(JSON.parse(JSON.stringify(obj)));
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}
const storeAsUser = async (obj: KubeObject) => client.objects.patch(obj, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);

/** A pooled Revision stored in the API server (claimed pods are owned by it). */
async function revision(fn: string, inline = 'export default (req, ctx) => new Response(`${ctx.revision} pid ${process.pid}`)'): Promise<Revision> {
  return parse<Revision>(
    await storeAsUser({
      apiVersion: GV,
      kind: 'Revision',
      metadata: { name: `${fn}-00001`, namespace: NS, labels: { [FUNCTION_LABEL]: fn } },
      spec: { function: fn, template: { source: { inline }, executor: 'pool', environment: 'nodejs' } },
    }),
  );
}

const pods = () => executor.pods.list().filter((p) => p.metadata.namespace === NS && !p.metadata.deletionTimestamp) as Pod[];
const poolPods = () => pods().filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool');
const podsOf = (rev: string) => pods().filter((p) => p.metadata.labels?.[REVISION_LABEL] === rev);
const livePod = (name: string) => client.get<Pod>('v1', 'Pod', NS, name);
const text = async (address: string, path = '/') => (await fetch(`http://${address}${path}`)).text();
const twoWarm = () => eventually('two warm pool pods', () => executor.warmCounts()[`${NS}/nodejs`] === 2, 120_000, 100);
const poolKey = async () => Buffer.from(((await client.get<KubeObject & { data?: Record<string, string> }>('v1', 'Secret', NS, specializeSecretName('nodejs')))!.data!)[SPECIALIZE_TOKEN_KEY]!, 'base64').toString();
const podUpdates = (name?: string) =>
  auditEvents((e) => e.verb === 'update' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === NS && !e.objectRef.subresource && e.user.username === adminUser && (name === undefined || e.objectRef.name === name));

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new RivalledClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('pool-exec'));
  await defaultServiceAccount(client, NS);
  registry = await startHostRegistry();
  env = parse<Environment>(await storeAsUser({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 2 } }));
  executor = new KubernetesPoolExecutor({ client, namespace: NS, idleTimeoutMs: IDLE_MS, registrationCredential: registrationCredentials(registry.masterKey) });
  await executor.start();
  // What the operator's Environment reconcile does: the pool key Secret first, then the pool.
  await executor.ensureSpecializeSecret(env);
  for (const m of renderPoolChildren(env, undefined, { registryUrls: [registry.url] })) await client.apply(m);
  await twoWarm();
  adminUser = auditEvents((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === NS)[0]!.user.username;
}, 180_000);

afterAll(async () => {
  await executor?.stop();
  await dispose();
  await registry?.stop();
}, 60_000);

describe('KubernetesPoolExecutor (real control plane, pool pods run by the process kubelet)', () => {
  it('keeps one pool key: the Secret is created once and re-reads give the same key', async () => {
    const key = await poolKey();
    expect(key.length).toBeGreaterThanOrEqual(40);
    expect(await executor.ensureSpecializeSecret(env)).toBe(key);
    const creates = auditEvents((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === NS);
    expect(creates).toHaveLength(1);
    expect(creates[0]!.responseStatus?.code).toBe(201);
  });

  it('a generic pod refuses specialize without its nonce, with a wrong one, with the pool key or another pod’s nonce (401), and stays ready', async () => {
    const [a, b] = poolPods();
    const key = await poolKey();
    const address = `${a!.status!.podIP as string}:8080`;
    const body = JSON.stringify({ namespace: NS, function: 'evil', revision: 'evil-00001', source: { inline: 'export default () => new Response("owned")' } });
    for (const bearer of [undefined, 'not-the-nonce', key, deriveSpecializeNonce(key, NS, b!.metadata.uid!)]) {
      const res = await fetch(`http://${address}/v1/specialize`, { method: 'POST', headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) }, body });
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ code: 'unauthorized' });
    }
    expect(await (await fetch(`http://${address}/readyz`)).json()).toEqual({ status: 'ready', specialized: false });
  });

  it('specializes a warm pod (claimed by a guarded replace), the function answers, it registers with its credential, and the pool refills', { timeout: 120_000 }, async () => {
    const before = new Set(poolPods().map((p) => p.metadata.name));
    const rev = await revision('hello');
    const { address, timing } = await executor.specialize(rev);
    expect(timing?.workerMs).toBeGreaterThanOrEqual(0);
    expect(await text(address)).toMatch(/^hello-00001 pid \d+$/);

    // The executor's pod cache follows the API server's watch: the claim shows up there shortly.
    const [pod] = await eventually('the claimed pod in the cache', () => (podsOf('hello-00001').length === 1 ? podsOf('hello-00001') : undefined));
    expect(before.has(pod!.metadata.name)).toBe(true); // a warm pod, not a new one
    expect(address).toBe(`${pod!.status!.podIP as string}:8080`);
    const stored = (await livePod(pod!.metadata.name))!;
    expect(stored.metadata.labels).toMatchObject({ [COMPONENT_LABEL]: SPECIALIZED_COMPONENT, [FUNCTION_LABEL]: 'hello', [REVISION_LABEL]: 'hello-00001', 'orrery.dev/environment': 'nodejs' });
    // Owned by the (real) Revision now, no longer by the pool's ReplicaSet.
    expect(stored.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Revision', name: 'hello-00001', uid: rev.metadata.uid, controller: true })]);
    // The claim was a PUT of the whole pod (optimistic concurrency: see the 409 test).
    expect(podUpdates(pod!.metadata.name).map((e) => e.responseStatus?.code)).toEqual([200]);

    // Routers find it through the registry, under its revision, at the pod's address.
    const [instance] = await eventually('registration', async () => {
      const list = await registry!.instances(NS, revisionServiceName(rev));
      return list.length ? list : undefined;
    });
    expect(instance).toMatchObject({ instanceId: pod!.metadata.name, endpoints: [expect.objectContaining({ host: pod!.status!.podIP, port: 8080 })], labels: expect.objectContaining({ 'orrery.dev/executor': 'pool' }) });

    expect(executor.readySpecialized(`${NS}/hello-00001`)).toBe(1);
    // A second request reuses the specialized pod: no new specialization.
    const n = executor.specializations;
    expect((await executor.specialize(rev)).address).toBe(address);
    expect(executor.specializations).toBe(n);

    // The ReplicaSet controller replaced the claimed pod: two warm pods again, one of them new.
    await twoWarm();
    expect(poolPods().some((p) => !before.has(p.metadata.name))).toBe(true);
  });

  it('concurrent cold requests for one revision share one pod and one specialize call', { timeout: 120_000 }, async () => {
    await twoWarm();
    const n = executor.specializations;
    const rev = await revision('shared');
    const answers = await Promise.all(Array.from({ length: 6 }, () => executor.specialize(rev)));
    expect(new Set(answers.map((a) => a.address)).size).toBe(1);
    expect(executor.specializations).toBe(n + 1);
    await eventually('one claimed pod in the cache', () => podsOf('shared-00001').length === 1);
    expect(await text(answers[0]!.address)).toMatch(/^shared-00001 pid/);
  });

  it('a claim that loses to a real concurrent writer (409) is retried on a fresh copy; the other writer’s change survives', { timeout: 120_000 }, async () => {
    await twoWarm();
    const conflicts = executor.claimConflicts;
    client.rivalNext = 1;
    const { address } = await executor.specialize(await revision('contended'));
    expect(await text(address)).toMatch(/^contended-00001 pid/);
    expect(executor.claimConflicts).toBe(conflicts + 1);
    const rivalled = client.rivalled.at(-1)!;
    // The API server refused the stale replace; a later claim (of this pod at its new version, or of another) succeeded.
    expect(podUpdates(rivalled)[0]!.responseStatus?.code).toBe(409);
    const [claimed] = await eventually('the claimed pod in the cache', () => (podsOf('contended-00001').length === 1 ? podsOf('contended-00001') : undefined));
    expect(podUpdates(claimed!.metadata.name).at(-1)!.responseStatus?.code).toBe(200);
    // Nothing the rival wrote was overwritten.
    const afterwards = (await livePod(rivalled))!;
    expect(afterwards.metadata.annotations?.['example.com/rival']).toBe('was-here');
    if (claimed!.metadata.name !== rivalled) expect(afterwards.metadata.labels?.[COMPONENT_LABEL]).toBe('pool');
  });

  it('a load error is a 422 and the pod is deleted, never reused', { timeout: 120_000 }, async () => {
    await twoWarm();
    const err = await executor.specialize(await revision('broken', 'export default = syntax error')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecializeError);
    expect((err as SpecializeError).status).toBe(422);
    await eventually('the failed pod deleted', async () => (await client.list('v1', 'Pod', NS, `${REVISION_LABEL}=broken-00001`)).items.length === 0, 60_000);
  });

  it('scale follows the KPA up and down for a pooled revision (the newest claim goes first)', { timeout: 120_000 }, async () => {
    await twoWarm();
    const rev = await revision('scaled');
    await executor.specialize(rev);
    // scale() counts the specialized pods in the informer cache, as the KPA's every tick does; the
    // claim it just made may reach the cache a moment later (one call here, not a tick per second).
    await eventually('the claimed pod in the cache', () => executor.readySpecialized(`${NS}/scaled-00001`) === 1, 30_000);
    executor.scale(rev, 2);
    await eventually('two specialized pods', () => executor.readySpecialized(`${NS}/scaled-00001`) === 2, 60_000);
    const claimedAt = (p: KubeObject) => p.metadata.annotations![CLAIMED_AT_ANNOTATION]!;
    const newest = podsOf('scaled-00001').sort((a, b) => (claimedAt(a) < claimedAt(b) ? 1 : -1))[0]!;
    executor.scale(rev, 1);
    await eventually('back to one', () => podsOf('scaled-00001').length === 1, 60_000);
    expect(podsOf('scaled-00001')[0]!.metadata.name).not.toBe(newest.metadata.name);
  });

  it('a recreated pool key: a pod derived from the new key refuses the cached one (401), is deleted, the key re-read, the call succeeds', { timeout: 180_000 }, async () => {
    await twoWarm();
    // Someone else (kubectl, a GitOps tool) recreates the Secret: the executor's cached key is stale.
    const rotated = 'rotated-by-someone-else-0123456789abcdef';
    await client.delete('v1', 'Secret', NS, specializeSecretName('nodejs'));
    await client.objects.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: specializeSecretName('nodejs'), namespace: NS }, data: { [SPECIALIZE_TOKEN_KEY]: Buffer.from(rotated).toString('base64') } }, undefined, undefined, 'kubectl');
    // Roll the pool: the new pods' init containers derive their verifiers from the new key.
    const old = poolPods().map((p) => p.metadata.name);
    for (const name of old) await client.delete('v1', 'Pod', NS, name);
    await eventually('a rolled pool', () => poolPods().length === 2 && poolPods().every((p) => !old.includes(p.metadata.name)) && executor.warmCounts()[`${NS}/nodejs`] === 2, 120_000);
    const n = executor.specializations;
    const { address } = await executor.specialize(await revision('rotated'));
    expect(await text(address)).toMatch(/^rotated-00001 pid/);
    expect(executor.specializations).toBe(n + 2); // one 401, one success
    // The pod that serves mounted the new key (in its init container only).
    const [served] = await eventually('the claimed pod in the cache', () => (podsOf('rotated-00001').length === 1 ? podsOf('rotated-00001') : undefined));
    const dir = podDir(NS, served!.metadata.name)!;
    expect(readFileSync(join(dir, 'volumes', 'kubernetes.io~secret', 'pool-key', SPECIALIZE_TOKEN_KEY), 'utf8')).toBe(rotated);
  });

  it('idle specialized pods are deleted (their runtime stops and deregisters); a new request specializes again', { timeout: 120_000 }, async () => {
    await twoWarm();
    const rev = await revision('idle');
    const started = Date.now();
    await executor.specialize(rev);
    const [pod] = await eventually('the claimed pod in the cache', () => (podsOf('idle-00001').length === 1 ? podsOf('idle-00001') : undefined));
    const pid = containerPid(NS, pod!.metadata.name, 'runtime')!;
    expect(pid).toBeGreaterThan(0);
    await eventually('registered', async () => (await registry!.instances(NS, revisionServiceName(rev))).length === 1);
    await eventually('idle pod reaped', () => podsOf('idle-00001').length === 0, IDLE_MS * 4);
    expect(Date.now() - started).toBeGreaterThanOrEqual(IDLE_MS);
    await eventually('process stopped', () => {
      try {
        process.kill(pid, 0);
        return false;
      } catch {
        return true;
      }
    }, 60_000);
    await eventually('deregistered', async () => (await registry!.instances(NS, revisionServiceName(rev))).length === 0, 30_000);
    expect(executor.readySpecialized(`${NS}/idle-00001`)).toBe(0);
    const n = executor.specializations;
    const { address } = await executor.specialize(rev);
    expect(await text(address)).toMatch(/^idle-00001 pid/);
    expect(executor.specializations).toBe(n + 1);
  });
});
