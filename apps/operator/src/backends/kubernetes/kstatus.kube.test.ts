/**
 * GitOps status on the real control plane (issue 19): kstatus — the code Flux and kpt decide with
 * (sigs.k8s.io/cli-utils, built from tools/kstatus) — reads live Orrery objects while a Function
 * rolls out (InProgress), serves (Current), fails at load (Failed, once the Deployment passes its
 * progress deadline and the operator reports it) and is fixed (Current again).
 *
 * With ORRERY_RECORD_ARGOCD_FIXTURES=1 the statuses seen are written to docs/argocd/fixtures/,
 * where packages/chart-tests/src/argocd-health.test.ts runs the Argo CD health checks on them.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually, REPO_ROOT } from '@orrery/kube-testenv';
import { kstatus, kstatusBin, type KstatusVerdict } from '../../testing/kstatus-verdict.ts';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { startKubernetesStateSyncs } from './kube-state-sync-backend.ts';
import { createKubernetesResourceStore } from './kube-resource-store.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => {
  client = kube.client;
  kstatusBin(); // a cold build takes about 2 minutes; later runs find it in the cache
}, 300_000);

const RECORD = process.env.ORRERY_RECORD_ARGOCD_FIXTURES === '1';
/** Writes a live object as an Argo CD fixture: name, generation and status only, the namespace made stable. */
function record(file: string, description: string, argocd: string, verdict: KstatusVerdict, obj: KubeObject, ns: string): void {
  if (!RECORD) return;
  const object = { apiVersion: obj.apiVersion, kind: obj.kind, metadata: { name: obj.metadata.name, namespace: ns, generation: obj.metadata.generation }, ...(obj.status ? { status: obj.status } : {}) };
  const fixture = { description, source: 'recorded live by apps/operator/src/backends/kubernetes/kstatus.kube.test.ts', argocd, kstatus: verdict.status, object };
  writeFileSync(join(REPO_ROOT, 'docs', 'argocd', 'fixtures', `${file}.json`), `${JSON.stringify(fixture, null, 2).replaceAll(ns, 'shop')}\n`);
}

const fnObj = (ns: string, code: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name: 'hello', namespace: ns },
  spec: { template: { source: { inline: code } } },
});
const GOOD = 'export default () => "v1"';
const THROWS_AT_LOAD = 'throw new Error("boom at load"); export default () => "never"';
const FIXED = 'export default () => "v3"';

interface Seen {
  verdict: KstatusVerdict;
  /** The object when the verdict first appeared, and the last one read with it. */
  obj: KubeObject;
  last: KubeObject;
}

/** Reads the objects and kstatus's verdicts on them until `done` holds; every change of verdict per object, in order. */
async function follow(ns: string, names: Array<[kind: string, name: string]>, done: (v: Map<string, Seen>) => boolean, timeoutMs: number): Promise<Map<string, Seen[]>> {
  const history = new Map<string, Seen[]>();
  await eventually(
    'the verdicts',
    async () => {
      const objs = (await Promise.all(names.map(([kind, name]) => client.get(GV, kind, ns, name)))).filter((o): o is KubeObject => !!o);
      const latest = new Map<string, Seen>();
      kstatus(objs).forEach((verdict, i) => {
        const obj = objs[i]!;
        const key = `${obj.kind}/${obj.metadata.name}`;
        latest.set(key, { verdict, obj, last: obj });
        const seen = history.get(key) ?? [];
        if (seen.at(-1)?.verdict.status === verdict.status) seen.at(-1)!.last = obj;
        else history.set(key, [...seen, { verdict, obj, last: obj }]);
      });
      return done(latest);
    },
    timeoutMs,
    50,
  );
  return history;
}
const statusOf = (v: Map<string, Seen>, key: string) => v.get(key)?.verdict.status;

describe('kstatus on live Orrery objects', () => {
  it('a Function: InProgress while it rolls out, Current when ready, Failed when its code throws at load, Current again once fixed', { timeout: 300_000 }, async () => {
    const ns = await kube.freshNs('kstatus');
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { image: DEFAULT_RUNTIME_IMAGE, poolSize: 0 } });
    await client.apply(fnObj(ns, GOOD));

    // Before the operator wrote anything, kstatus calls a custom resource without status Current
    // (its generic rules find nothing to wait on): a limitation docs/operations.md names.
    const bare = (await client.get(GV, 'Function', ns, 'hello'))!;
    expect(bare.status).toBeUndefined();
    const [bareVerdict] = kstatus([bare]);
    expect(bareVerdict).toMatchObject({ status: 'Current', message: 'Resource is current' });
    record('function-no-status', 'created, the operator has not written a status yet', 'Progressing', bareVerdict!, bare, ns);

    // A short progress deadline, so a worker that cannot load fails the revision within seconds.
    const op = new KubernetesFunctionOperator({ client, namespace: ns, progressDeadlineSeconds: 8 });
    await op.start();
    let running = true;
    cleanups.push(() => (running ? op.stop() : undefined));

    const v1 = await follow(ns, [['Function', 'hello'], ['Revision', 'hello-00001'], ['Environment', 'nodejs']], (v) => statusOf(v, 'Function/hello') === 'Current' && !!v.get('Function/hello')!.obj.status, 120_000);
    const fnV1 = v1.get('Function/hello')!.filter((s) => s.obj.status);
    expect(fnV1.map((s) => s.verdict.status)).toEqual(['InProgress', 'Current']);
    expect(fnV1[0]!.verdict.message).toMatch(/hello-00001|first revision/);
    record('function-rolling-out', 'the first revision is starting', 'Progressing', fnV1[0]!.verdict, fnV1[0]!.last, ns);
    record('function-ready', 'the latest revision is ready and serves all traffic', 'Healthy', fnV1[1]!.verdict, fnV1[1]!.obj, ns);
    const revV1 = v1.get('Revision/hello-00001')!.filter((s) => s.obj.status);
    expect(revV1.at(-1)!.verdict.status).toBe('Current');
    const deploying = revV1.find((s) => s.verdict.status === 'InProgress');
    if (deploying) record('revision-deploying', 'workers are starting', 'Progressing', deploying.verdict, deploying.last, ns);
    record('revision-ready', 'a worker is ready', 'Healthy', revV1.at(-1)!.verdict, revV1.at(-1)!.obj, ns);
    const env = await eventually('Environment Ready', async () => {
      const o = await client.get(GV, 'Environment', ns, 'nodejs');
      return (o?.status as { conditions?: Array<{ type: string; status: string }> } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? o : undefined;
    });
    const [envVerdict] = kstatus([env]);
    expect(envVerdict!.status).toBe('Current');
    record('environment-ready', 'accepted; its pool starts with the first pool revision', 'Healthy', envVerdict!, env, ns);

    // v2 throws at load: its workers exit at start (CrashLoopBackOff), hello-00001 keeps serving.
    await client.apply(fnObj(ns, THROWS_AT_LOAD));
    const v2 = await follow(ns, [['Function', 'hello'], ['Revision', 'hello-00002']], (v) => statusOf(v, 'Function/hello') === 'Failed', 120_000);
    const fnV2 = v2.get('Function/hello')!;
    // Current (v1, until the operator sees generation 2) → InProgress (rolling out) → Failed.
    expect(fnV2.map((s) => s.verdict.status).filter((s) => s !== 'Current')).toEqual(['InProgress', 'Failed']);
    const failed = fnV2.at(-1)!;
    expect(failed.verdict.message).toContain('hello-00002');
    expect(failed.verdict.message).toContain('progress deadline');
    expect(failed.obj.status).toMatchObject({ latestReadyRevision: 'hello-00001', observedGeneration: 2 });
    const rolling = fnV2.find((s) => s.verdict.status === 'InProgress')!;
    // The last read of that run: the operator's own status (Reconciling), not just the generation lag.
    expect((rolling.last.status as { observedGeneration?: number }).observedGeneration).toBe(2);
    record('function-rollout-pending', 'a new revision is starting while the previous one serves', 'Progressing', rolling.verdict, rolling.last, ns);
    record('function-revision-failed', 'the latest revision cannot start (its code throws at load); the previous one still serves', 'Degraded', failed.verdict, failed.obj, ns);
    const rev2 = (await client.get(GV, 'Revision', ns, 'hello-00002'))!;
    const [rev2Verdict] = kstatus([rev2]);
    expect(rev2Verdict).toMatchObject({ status: 'Failed', message: expect.stringContaining('progress deadline') });
    record('revision-failed', 'no worker became ready within the progress deadline', 'Degraded', rev2Verdict!, rev2, ns);

    // Fixed code: a third revision becomes ready and the Function is Current again, Stalled gone.
    await client.apply(fnObj(ns, FIXED));
    const v3 = await follow(ns, [['Function', 'hello']], (v) => statusOf(v, 'Function/hello') === 'Current' && (v.get('Function/hello')!.obj.status as { latestReadyRevision?: string }).latestReadyRevision === 'hello-00003', 120_000);
    const recovered = v3.get('Function/hello')!.at(-1)!;
    expect((recovered.obj.status as { conditions: Array<{ type: string }> }).conditions.map((c) => c.type)).not.toContain('Stalled');
    record('function-recovered', 'a fixed template rolled out after a failed one', 'Healthy', recovered.verdict, recovered.obj, ns);
    // The failed revision, superseded: scaled to zero, it runs nothing and never was ready (Inactive).
    const inactive = await eventually('hello-00002 inactive', async () => {
      const r = await client.get(GV, 'Revision', ns, 'hello-00002');
      return (r?.status as { conditions?: Array<{ type: string; reason?: string }> } | undefined)?.conditions?.some((c) => c.type === 'Ready' && c.reason === 'Inactive') ? r : undefined;
    }, 60_000);
    const [inactiveVerdict] = kstatus([inactive]);
    expect(inactiveVerdict!.status).toBe('InProgress');
    record('revision-inactive', 'superseded before it was ever ready: no traffic, nothing runs', 'Suspended', inactiveVerdict!, inactive, ns);

    // A spec change nobody has reconciled yet (the operator is down): InProgress on the generation alone.
    await op.stop();
    running = false;
    await client.apply(fnObj(ns, GOOD));
    const lagging = (await client.get(GV, 'Function', ns, 'hello'))!;
    expect(lagging.metadata.generation).toBe(4);
    const [lagVerdict] = kstatus([lagging]);
    expect(lagVerdict).toMatchObject({ status: 'InProgress', message: 'Function generation is 4, but latest observed generation is 3' });
    record('function-generation-not-observed', 'the spec changed and the operator has not observed it yet (its conditions are about generation 3)', 'Progressing', lagVerdict!, lagging, ns);
  });

  it('a StateSync whose target does not exist: Failed, with the reason', { timeout: 120_000 }, async () => {
    const ns = await kube.freshNs('kstatus-ss');
    const store = createKubernetesResourceStore({ client, namespace: ns, rewatchMs: 100 });
    const reconciler = await startKubernetesStateSyncs(client, store, { intervalMs: 300 });
    cleanups.push(async () => {
      await reconciler.stop();
      await store.close?.();
    });
    await client.apply({ apiVersion: GV, kind: 'StateSync', metadata: { name: 'routers', namespace: ns }, spec: { target: { component: 'router' }, redis: { urlSecretRef: { name: 'redis', key: 'url' } } } });
    const seen = await follow(ns, [['StateSync', 'routers']], (v) => statusOf(v, 'StateSync/routers') === 'Failed', 60_000);
    const failed = seen.get('StateSync/routers')!.at(-1)!;
    expect(failed.verdict.message).toContain('no Deployment labelled');
    record('statesync-no-target', 'no Deployment matches its target', 'Degraded', failed.verdict, failed.obj, ns);
  });
});
