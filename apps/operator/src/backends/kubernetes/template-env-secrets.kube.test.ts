/**
 * Issue 20 item 5 on the real control plane: `spec.template.env[].valueFrom.secretKeyRef`. A deploy
 * worker's rendered Deployment carries a real secretKeyRef, so the real kubelet (the process
 * kubelet, with the Node authorizer) reads the Secret; a pooled revision's value is read by the
 * KubernetesPoolExecutor through the API and reaches the pod only in the specialize call. The value
 * is in no Deployment, Pod or ReplicaSet spec. A missing required Secret costs no pool pod.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Environment, type OrreryFunction, type Revision, parseResource } from '@orrery/spec';
import { adminKubeConfig, createNamespace, eventually } from '@orrery/kube-testenv';
import { SpecializeError } from '../../pool-executor/specialization.ts';
import { KubernetesPoolExecutor } from './kube-pool-executor.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { COMPONENT_LABEL, REVISION_LABEL } from './render/labels.ts';
import { renderPoolChildren } from './render/pool.ts';
import { renderRevisionChildren, renderServiceAccount } from './render/revision-children.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const GV = 'orrery.dev/v1alpha1';
const SECRET = 'sk_live_kube_5c2e9a17';
const CODE = 'export default async () => Response.json({ apiKey: process.env.API_KEY ?? null, mode: process.env.MODE ?? null, optional: process.env.OPTIONAL ?? null });';
const ENV = [
  { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } },
  { name: 'OPTIONAL', valueFrom: { secretKeyRef: { name: 'absent', key: 'k', optional: true } } },
  { name: 'MODE', value: 'plain' },
];

let client: KubeClient;
let NS = '';
let dispose: () => Promise<void> = async () => {};
let executor: KubernetesPoolExecutor | undefined;

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}
const template = (executor: 'deploy' | 'pool', env: unknown[] = ENV) => ({ source: { inline: CODE }, executor, env, timeoutSeconds: 30 });
const ready = (p: Any) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && p.status.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True');
const pods = async (selector: string) => (await client.list<KubeObject & { spec: Any; status: Any }>('v1', 'Pod', NS, selector)).items;

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: NS, dispose } = await createNamespace('env-secrets'));
  await defaultServiceAccount(client, NS);
  await client.create({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'shop-keys', namespace: NS }, type: 'Opaque', data: { 'api-key': Buffer.from(SECRET).toString('base64') } });
}, 120_000);

afterAll(async () => {
  await executor?.stop();
  await dispose();
}, 120_000);

describe('env from a Secret on the real control plane', () => {
  it('deploy: the kubelet resolves the rendered secretKeyRef; the value is in no spec', { timeout: 240_000 }, async () => {
    const fn = parse<OrreryFunction>({ apiVersion: GV, kind: 'Function', metadata: { name: 'shop', namespace: NS }, spec: { template: template('deploy') } });
    const rev = parse<Revision>({ apiVersion: GV, kind: 'Revision', metadata: { name: 'shop-00001', namespace: NS, labels: { 'orrery.dev/function': 'shop' } }, spec: { function: 'shop', template: template('deploy') } });
    for (const m of [renderServiceAccount(fn), ...renderRevisionChildren({ fn, revision: rev, runtimeImage: DEFAULT_RUNTIME_IMAGE })]) await client.apply(m);
    const pod = await eventually('a ready worker pod', async () => (await pods(`${REVISION_LABEL}=shop-00001`)).find(ready), 180_000, 500);
    expect(await (await fetch(`http://${pod.status.podIP as string}:8080/`)).json()).toEqual({ apiKey: SECRET, mode: 'plain', optional: null });
    const runtime = (pod.spec.containers as Any[]).find((c) => c.name === 'runtime')!;
    expect(runtime.env).toContainEqual({ name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'shop-keys', key: 'api-key' } } });
    for (const kind of ['Deployment', 'ReplicaSet', 'Pod'] as const) {
      const objs = (await client.list<KubeObject>(kind === 'Pod' ? 'v1' : 'apps/v1', kind, NS)).items;
      expect(JSON.stringify(objs), kind).not.toContain(SECRET);
    }
  });

  it('pool: the executor reads the Secret and sends it with the specialize call only; a missing one costs no pod', { timeout: 240_000 }, async () => {
    const env = parse<Environment>({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 1 } });
    executor = new KubernetesPoolExecutor({ client, namespace: NS, idleTimeoutMs: 600_000, readyWaitMs: 180_000 });
    await executor.start();
    await executor.ensureSpecializeSecret(env);
    for (const m of renderPoolChildren(env, DEFAULT_RUNTIME_IMAGE)) await client.apply(m);
    await eventually('a warm pool pod', async () => (await pods(`${COMPONENT_LABEL}=pool`)).some(ready), 180_000, 500);

    const missing = parse<Revision>({ apiVersion: GV, kind: 'Revision', metadata: { name: 'broken-00001', namespace: NS, labels: { 'orrery.dev/function': 'broken' } }, spec: { function: 'broken', template: template('pool', [{ name: 'K', valueFrom: { secretKeyRef: { name: 'nope', key: 'k' } } }]) } });
    const err = await executor.specialize(missing).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpecializeError);
    expect(err).toMatchObject({ status: 422, code: 'secret_not_found' });
    expect((err as Error).message).toContain(`secret ${NS}/nope has no key "k"`);
    expect((await pods(`${COMPONENT_LABEL}=pool`)).filter(ready)).toHaveLength(1); // still warm, unclaimed

    const rev = parse<Revision>({ apiVersion: GV, kind: 'Revision', metadata: { name: 'pooled-00001', namespace: NS, labels: { 'orrery.dev/function': 'pooled' } }, spec: { function: 'pooled', template: template('pool') } });
    const { address } = await executor.specialize(rev);
    expect(await (await fetch(`http://${address}/`)).json()).toEqual({ apiKey: SECRET, mode: 'plain', optional: null });
    const all = [...(await client.list<KubeObject>('v1', 'Pod', NS)).items, ...(await client.list<KubeObject>('apps/v1', 'Deployment', NS)).items];
    expect(JSON.stringify(all)).not.toContain(SECRET);
  });
});
