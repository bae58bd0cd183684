/**
 * The Kubernetes operator's pool executor end to end on the real control plane: the Environment
 * reconcile creates the pool key Secret before the pool, the real Deployment/ReplicaSet
 * controllers and the process kubelet run the pool pods (`orrery-runtime --mode pool`, at their
 * own pod IPs), the routers' cold path `/v1/executor/specialize` is served by the operator, a
 * pooled revision's readiness and scale follow its specialized pods, the KPA scales it, and the
 * specialized workers register in a real orrery-registry with their revision's credential.
 */
import { join } from 'node:path';
import { PatchStrategy } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminKubeConfig, auditEvents, createNamespace, eventually, installCrds, REPO_ROOT } from '@orrery/kube-testenv';
import { KPA_DEFAULTS } from '../../autoscaler/kpa-settings.ts';
import { registrationCredentials } from '../../reconcile/registration-credential.ts';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { SPECIALIZED_COMPONENT } from './kube-pool-executor.ts';
import { COMPONENT_LABEL, REVISION_LABEL } from './render/labels.ts';
import { specializeSecretName } from './render/pool.ts';
import { type HostRegistry, defaultServiceAccount, startHostRegistry } from './testing/kube-fixtures.ts';
import { type OperatorControlServer, serveOperatorControl } from './testing/operator-control-server.ts';

const GV = 'orrery.dev/v1alpha1';
type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
type Pod = KubeObject & { status?: Any };

let NS = '';
let dispose: () => Promise<void> = async () => {};
let client: KubeClient;
let op: KubernetesFunctionOperator | undefined;
let control: OperatorControlServer | undefined;
let registry: HostRegistry | undefined;

const livePods = async () => (await client.list<Pod>('v1', 'Pod', NS)).items.filter((p) => !p.metadata.deletionTimestamp);
const podsOf = async (rev: string) => (await livePods()).filter((p) => p.metadata.labels?.[REVISION_LABEL] === rev);
const warm = async () => (await livePods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && p.status?.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True')).length;
const revStatus = async (name: string) => ((await client.get(GV, 'Revision', NS, name))?.status ?? {}) as Any;
const readyCondition = async (name: string) => ((await revStatus(name)).conditions as Any[] | undefined)?.find((c) => c.type === 'Ready');
const service = (rev: string) => `orrery.functions.${NS}.greet.${rev}`;

async function specialize(body: Record<string, string>): Promise<{ status: number; json: Any }> {
  const res = await fetch(`${control!.url}/v1/executor/specialize`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Any };
}

/** The user's objects, applied under a field manager of their own (kubectl apply --server-side). */
const applyAsUser = (obj: KubeObject) => client.objects.patch(obj, undefined, undefined, 'kubectl', true, PatchStrategy.ServerSideApply);
const fnObj = (name: string, executor: 'pool' | 'deploy', code: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: NS },
  spec: { template: { source: { inline: code }, executor, environment: 'nodejs', containerConcurrency: 1 } },
});

beforeAll(async () => {
  const kc = adminKubeConfig();
  client = new KubeClient(kc);
  await installCrds(kc, join(REPO_ROOT, 'charts', 'orrery', 'crds'));
  ({ name: NS, dispose } = await createNamespace('pooled'));
  await defaultServiceAccount(client, NS);
  registry = await startHostRegistry();
  op = new KubernetesFunctionOperator({
    client,
    namespace: NS,
    registryUrls: [registry.url],
    registrationCredential: registrationCredentials(registry.masterKey),
    kpa: { ...KPA_DEFAULTS, stableWindowMs: 1000, scaleToZeroGracePeriodMs: 300, tickMs: 50 },
    // Long enough for the checks after a cold start on a busy machine, short enough for the reaper test.
    pool: { idleTimeoutMs: 8000 },
  });
  await op.start();
  control = await serveOperatorControl(op);
  await applyAsUser({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 2 } });
}, 120_000);

afterAll(async () => {
  await op?.stop();
  control?.close();
  await dispose();
  await registry?.stop();
}, 60_000);

describe('pooled revisions on the Kubernetes operator (real control plane, pool pods run by the process kubelet)', () => {
  it('the Environment reconcile creates the pool key Secret once, then a pool whose workers register and warm up', { timeout: 150_000 }, async () => {
    await eventually('two warm pool pods', async () => (await warm()) === 2, 120_000, 250);
    const secret = (await client.get('v1', 'Secret', NS, specializeSecretName('nodejs'))) as Any;
    expect(Buffer.from(secret.data.token as string, 'base64').toString().length).toBeGreaterThanOrEqual(40);
    const creates = auditEvents((e) => e.verb === 'create' && e.objectRef?.resource === 'secrets' && e.objectRef.namespace === NS);
    expect(creates).toHaveLength(1);
    const pool = (await client.get('apps/v1', 'Deployment', NS, 'orrery-pool-nodejs')) as Any;
    const args = (pool.spec.template.spec.containers[0].args as string[]).join(' ');
    expect(args).toContain(`--registry-url ${registry!.url}`);
    expect(args).toContain('--mode pool');
    // Owned by the Environment (a real uid, so the garbage collector keeps it).
    const envUid = (await client.get(GV, 'Environment', NS, 'nodejs'))!.metadata.uid;
    expect(pool.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Environment', uid: envUid })]);
    await eventually('Environment status readyPoolWorkers 2', async () => ((await client.get(GV, 'Environment', NS, 'nodejs'))?.status as Any | undefined)?.readyPoolWorkers === 2, 30_000);
  });

  it('a pooled revision is Ready before any pod is specialized; the cold path specializes one and the function answers', { timeout: 150_000 }, async () => {
    await applyAsUser(fnObj('greet', 'pool', 'export default (req, ctx) => new Response(`hello from ${ctx.revision}`)'));
    const cond = await eventually('greet-00001 Ready', async () => {
      const c = await readyCondition('greet-00001');
      return c?.status === 'True' && c;
    }, 60_000);
    expect(cond.reason).toBe('PoolExecutor');
    expect(await podsOf('greet-00001')).toHaveLength(0);

    const { status, json } = await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' });
    expect(status).toBe(200);
    expect(await (await fetch(`http://${json.address as string}/`)).text()).toBe('hello from greet-00001');
    const [pod] = await podsOf('greet-00001');
    expect(pod!.metadata.labels?.[COMPONENT_LABEL]).toBe(SPECIALIZED_COMPONENT);
    expect(json.address).toBe(`${pod!.status!.podIP as string}:8080`);
    // Routers find it through the registry, under its revision.
    await eventually('registered under its revision', async () => (await registry!.instances(NS, service('greet-00001'))).some((i) => i.instanceId === pod!.metadata.name));
    // The status follows the specialized pod (the pod informer queues the revision).
    const st = await eventually('readyWorkers 1', async () => {
      const s = await revStatus('greet-00001');
      return s.readyWorkers === 1 && s;
    });
    expect(await readyCondition('greet-00001')).toMatchObject({ status: 'True', reason: 'WorkersReady' });
    expect(st.autoscalerMode).toBeDefined();
    // The pool refills after the claim.
    await eventually('pool refilled', async () => (await warm()) === 2, 120_000, 250);
  });

  it('the cold path refuses what it must: unknown revisions 404, deploy revisions 409, bad bodies 400', { timeout: 60_000 }, async () => {
    expect(await specialize({ namespace: NS, function: 'greet', revision: 'greet-00099' })).toMatchObject({ status: 404, json: { code: 'revision_not_found' } });
    expect(await specialize({ namespace: NS, function: 'other', revision: 'greet-00001' })).toMatchObject({ status: 404, json: { code: 'revision_not_found' } });
    await applyAsUser(fnObj('steady', 'deploy', 'export default () => new Response("d")'));
    await eventually('steady-00001 created', () => client.get(GV, 'Revision', NS, 'steady-00001'));
    await eventually('deploy revision answers 409', async () => (await specialize({ namespace: NS, function: 'steady', revision: 'steady-00001' })).status === 409);
    expect(await specialize({ namespace: NS })).toMatchObject({ status: 400, json: { code: 'invalid_body' } });
  });

  it('the KPA scales a pooled revision: load specializes a second pod, idleness lets the reaper take them', { timeout: 180_000 }, async () => {
    await eventually('two warm pods', async () => (await warm()) === 2, 120_000, 250);
    // The first pod comes through the cold path (as on the local backend, scale only adds to it).
    expect((await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' })).status).toBe(200);
    // Sustained concurrency 1.2 at a target of 0.7 per worker (containerConcurrency 1 × 70 %) → two workers.
    const load = setInterval(
      () => op!.autoscaler.recordStats('router-a', [{ namespace: NS, function: 'greet', revision: 'greet-00001', averageConcurrency: 1.2, requests: 20, windowMs: 1000 }]),
      50,
    );
    try {
      await eventually('two specialized pods', () => op!.pool.readySpecialized(`${NS}/greet-00001`) === 2, 90_000);
      await eventually('status readyWorkers 2', async () => (await revStatus('greet-00001')).readyWorkers === 2);
      expect(await registry!.instances(NS, service('greet-00001'))).toHaveLength(2);
    } finally {
      clearInterval(load);
    }
    // No more demand: desired falls to zero and the idle reaper (8 s) deletes the specialized pods.
    await eventually('specialized pods reaped', async () => (await podsOf('greet-00001')).length === 0, 60_000, 250);
    const st = await eventually('status readyWorkers 0', async () => {
      const s = await revStatus('greet-00001');
      return s.readyWorkers === 0 && s;
    });
    expect(st.desiredScale).toBe(0);
    expect((await readyCondition('greet-00001'))?.status).toBe('True'); // still servable on demand
    await eventually('deregistered', async () => (await registry!.instances(NS, service('greet-00001'))).length === 0, 30_000);
  });

  it('a revision that leaves the traffic releases its specialized pods', { timeout: 150_000 }, async () => {
    await eventually('a warm pod', async () => (await warm()) >= 1, 120_000, 250);
    expect((await specialize({ namespace: NS, function: 'greet', revision: 'greet-00001' })).status).toBe(200);
    await eventually('greet-00001 specialized', async () => (await podsOf('greet-00001')).length === 1);
    // A new template makes greet-00002 the newest, and all traffic follows the latest ready revision.
    await applyAsUser(fnObj('greet', 'pool', 'export default () => new Response("v2")'));
    await eventually('greet-00001 released', async () => (await podsOf('greet-00001')).length === 0, 60_000, 250);
    const second = await eventually('greet-00002 specialized', async () => {
      const r = await specialize({ namespace: NS, function: 'greet', revision: 'greet-00002' });
      return r.status === 200 && r;
    }, 60_000, 500);
    expect(await (await fetch(`http://${second.json.address as string}/`)).text()).toBe('v2');
  });
});
