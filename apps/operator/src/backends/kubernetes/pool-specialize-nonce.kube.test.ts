/**
 * Issue 20 item 2 on the real control plane: the rendered pool Deployment, applied as it is, runs
 * under the real Deployment/ReplicaSet controllers and the process kubelet (init container first,
 * `metadata.uid` from the downward API, the pool key Secret mounted into the init container only,
 * the verifier in a memory emptyDir). The KubernetesPoolExecutor specializes a pod with a tenant's
 * code that then tries to specialize the pool's other pods with everything it can read; replays
 * of the used nonce, for the same or another function, are refused.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveSpecializeNonce } from '@orrery/auth';
import { type Environment, type Revision, parseResource } from '@orrery/spec';
import { adminKubeConfig, containerLog, createNamespace, eventually } from '@orrery/kube-testenv';
import { KubernetesPoolExecutor } from './kube-pool-executor.ts';
import { KubeClient, type KubeObject } from './kube-client.ts';
import { COMPONENT_LABEL } from './render/labels.ts';
import { renderPoolChildren } from './render/pool.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';
import { defaultServiceAccount } from './testing/kube-fixtures.ts';

type Any = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const THIEF = readFileSync(join(import.meta.dirname, '..', '..', '..', '..', 'runtime', 'fixtures', 'specialize-thief.mjs'), 'utf8');

let client: KubeClient;
let NS = '';
let dispose: () => Promise<void> = async () => {};
let executor: KubernetesPoolExecutor | undefined;
let poolKey = '';

function parse<T>(obj: unknown): T {
  const r = parseResource(obj);
  if (!r.ok) throw new Error(JSON.stringify(r.errors));
  return r.resource as T;
}

const revision = (fn: string, inline: string): Revision =>
  parse<Revision>({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `${fn}-00001`, namespace: NS, labels: { 'orrery.dev/function': fn } },
    spec: { function: fn, template: { source: { inline }, executor: 'pool', environment: 'nodejs', timeoutSeconds: 60 } },
  });

const pods = async (): Promise<Array<KubeObject & { spec: Any; status: Any }>> => (await client.list<KubeObject & { spec: Any; status: Any }>('v1', 'Pod', NS, 'orrery.dev/environment=nodejs')).items;
const ready = (p: { status?: Any; metadata: Any }) => !p.metadata.deletionTimestamp && p.status?.phase === 'Running' && p.status.conditions?.some((c: Any) => c.type === 'Ready' && c.status === 'True');

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: NS, dispose } = await createNamespace('pool-nonce'));
  await defaultServiceAccount(client, NS);
  const env = parse<Environment>({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Environment', metadata: { name: 'nodejs', namespace: NS }, spec: { poolSize: 2 } });
  executor = new KubernetesPoolExecutor({ client, namespace: NS, idleTimeoutMs: 600_000, readyWaitMs: 120_000 });
  await executor.start();
  // What the Environment reconcile does: the pool key first, then the pool.
  poolKey = await executor.ensureSpecializeSecret(env);
  for (const m of renderPoolChildren(env, DEFAULT_RUNTIME_IMAGE)) await client.apply(m);
  await eventually('two ready pool pods', async () => (await pods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && ready(p)).length === 2, 180_000, 500);
}, 240_000);

afterAll(async () => {
  await executor?.stop();
  await dispose();
}, 120_000);

describe('pool pods on the real control plane: single-use nonces', () => {
  it('the init container wrote the verifier from the pod uid; the runtime container never mounts the pool key', async () => {
    const pod = (await pods()).find((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && ready(p))!;
    const init = pod.status.initContainerStatuses as Any[];
    expect(init).toHaveLength(1);
    expect(init[0]).toMatchObject({ name: 'specialize-verifier', state: { terminated: { exitCode: 0 } } });
    expect(containerLog(NS, pod.metadata.name, 'specialize-verifier')).not.toMatch(/error|cannot/i);
    const runtime = (pod.spec.containers as Any[]).find((c) => c.name === 'runtime')!;
    expect((runtime.volumeMounts as Any[]).map((m) => m.name)).not.toContain('pool-key');
    expect(JSON.stringify(runtime)).not.toContain(poolKey);
  });

  it('tenant code in a specialized pod cannot specialize the other pool pods; the used nonce is refused', { timeout: 240_000 }, async () => {
    const { address } = await executor!.specialize(revision('tenant', THIEF));
    const tenantPod = (await pods()).find((p) => p.metadata.labels?.['orrery.dev/revision'] === 'tenant-00001')!;
    // The pool refills: two warm pods again besides the tenant's.
    await eventually('pool refilled', async () => (await pods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && ready(p)).length === 2, 180_000, 500);
    const targets = (await pods()).filter((p) => p.metadata.labels?.[COMPONENT_LABEL] === 'pool' && ready(p)).map((p) => `${p.status.podIP}:8080`);
    const res = await fetch(`http://${address}/?namespace=${NS}&targets=${targets.join(',')}&look=/tmp`);
    expect(res.status).toBe(200);
    const report = (await res.json()) as { attempts: number; accepted: unknown[]; statuses: Record<string, number>; findings: string[] };
    expect(report.attempts).toBeGreaterThan(targets.length);
    expect(report.accepted).toEqual([]);
    // Every answer is a refusal; an attempt whose connection failed (a pool pod being replaced
    // while the thief loops) is counted as "error" and was not accepted either.
    expect(Object.keys(report.statuses).filter((s) => s !== 'error')).toEqual(['401']);
    // Neither the pool key nor the tenant pod's own (used) verifier was there to read.
    expect(report.findings.filter((f) => f.startsWith('/var/orrery/pool-key') || f.startsWith('/var/orrery/specialize'))).toEqual([]);
    for (const p of (await pods()).filter((x) => x.metadata.labels?.[COMPONENT_LABEL] === 'pool')) {
      expect(await (await fetch(`http://${p.status.podIP}:8080/readyz`)).json()).toMatchObject({ specialized: false });
    }

    // The executor's own nonce for the tenant pod, replayed: for the same function and for another.
    const nonce = deriveSpecializeNonce(poolKey, NS, tenantPod.metadata.uid!);
    for (const fn of ['tenant', 'victim']) {
      const again = await fetch(`http://${address}/v1/specialize`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${nonce}` },
        body: JSON.stringify({ namespace: NS, function: fn, revision: `${fn}-00001`, source: { inline: 'export default () => new Response("hijacked")' } }),
      });
      expect(again.status, fn).toBe(409);
      expect(await again.json()).toMatchObject({ code: 'specialize_nonce_used' });
    }
    // A warm pod's nonce is only the executor's: with it, the executor specializes the next revision there.
    const second = await executor!.specialize(revision('victim', 'export default () => new Response("mine")'));
    expect(await (await fetch(`http://${second.address}/`)).text()).toBe('mine');
  });
});
