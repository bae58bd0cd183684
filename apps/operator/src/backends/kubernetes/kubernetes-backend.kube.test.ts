/**
 * The Kubernetes backend's edges against a real kube-apiserver (and the real controller manager
 * for garbage collection): server-side apply and its conflicts, the status and scale
 * subresources, optimistic concurrency, and the Function operator's children.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { PatchStrategy } from '@kubernetes/client-node';
import { adminKubeConfig, auditEvents, eventually } from '@orrery/kube-testenv';
import { KPA_DEFAULTS } from '../../autoscaler/kpa-settings.ts';
import { KEYSPACE_DELETION_POLICY_ANNOTATION as KEYSPACE_POLICY_ANNOTATION } from '@orrery/spec';
import { KEYSPACE_FINALIZER } from '../../function/function-backend.ts';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import { KubeClient, type KubeObject, statusCode } from './kube-client.ts';
import { DEFAULT_RUNTIME_IMAGE } from './render/runtime-image.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const freshNs = () => kube.freshNs('kb');

const fnObj = (ns: string, name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns, ...meta },
  spec: { template: { source: { inline: 'export default () => "hi"' } }, ...extra },
});

const get = <T extends KubeObject = KubeObject>(apiVersion: string, kind: string, ns: string, name: string) => client.get<T>(apiVersion, kind, ns, name);
const spec = (o: KubeObject | undefined) => o?.spec as Record<string, unknown> | undefined;

describe('server-side apply on a real API server', () => {
  it('applies as field manager orrery-operator (an Apply entry in managedFields, force in the request)', async () => {
    const ns = await freshNs();
    await client.apply(fnObj(ns, 'a'), { conflicts: 'refuse' });
    await client.apply(fnObj(ns, 'a'), { conflicts: 'force' });
    const stored = (await get(GV, 'Function', ns, 'a'))!;
    expect(stored.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'orrery-operator', operation: 'Apply' }));
    const patches = auditEvents((e) => e.verb === 'patch' && e.objectRef?.resource === 'functions' && e.objectRef.namespace === ns && e.objectRef.name === 'a');
    expect(patches.map((e) => new URL(e.requestURI, 'https://x').searchParams.get('force'))).toEqual(['false', 'true']);
    expect(patches.every((e) => new URL(e.requestURI, 'https://x').searchParams.get('fieldManager') === 'orrery-operator')).toBe(true);
  });

  it('refuses strategic merge on custom resources (client-node’s default patch type): 415', async () => {
    const ns = await freshNs();
    await client.apply(fnObj(ns, 'a'));
    const err = await client.objects.patch(fnObj(ns, 'a'), undefined, undefined, 'x').catch((e: unknown) => e);
    expect(statusCode(err)).toBe(415);
  });

  it('a field another manager changed is a conflict unless forced; the same value is shared; dropped fields go', async () => {
    const ns = await freshNs();
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x', tier: 'web' } }));
    // kubectl edit: a plain update by another manager takes the label over.
    const cur = (await get(GV, 'Function', ns, 'a'))!;
    await client.objects.replace({ ...cur, metadata: { ...cur.metadata, labels: { team: 'y', tier: 'web' } } }, undefined, undefined, 'kubectl-edit');
    const err = await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x', tier: 'web' } }), { conflicts: 'refuse' }).catch((e: unknown) => e);
    expect(statusCode(err)).toBe(409);
    const status = JSON.parse(String((err as { body?: unknown }).body)) as { reason: string; details: { causes: Array<{ reason: string; field: string; message: string }> } };
    expect(status.reason).toBe('Conflict');
    expect(status.details.causes).toEqual([{ reason: 'FieldManagerConflict', field: '.metadata.labels.team', message: 'conflict with "kubectl-edit" using orrery.dev/v1alpha1' }]);
    // Applying the other manager's value is shared ownership, not a conflict; force takes the field.
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'y', tier: 'web' } }), { conflicts: 'refuse' });
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x' } }), { conflicts: 'force' });
    // tier was owned by orrery-operator alone (kubectl's update did not change it): dropping it removes it.
    expect((await get(GV, 'Function', ns, 'a'))!.metadata.labels).toEqual({ team: 'x' });
  });

  it('keeps a container and an env var another manager added to a rendered Deployment (listType=map merge)', async () => {
    const ns = await freshNs();
    const dep = (env: Array<{ name: string; value: string }>): KubeObject => ({
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: {
        replicas: 0,
        selector: { matchLabels: { a: 'b' } },
        template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'runtime', image: DEFAULT_RUNTIME_IMAGE, env }] } },
      },
    });
    await client.apply(dep([{ name: 'A', value: '1' }]));
    // A mesh injector adds a sidecar and an env var to our container, with its own apply.
    await client.objects.patch(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'd', namespace: ns },
        spec: { template: { spec: { containers: [{ name: 'runtime', env: [{ name: 'MESH', value: 'on' }] }, { name: 'sidecar', image: 'mesh/proxy:1' }] } } },
      },
      undefined,
      undefined,
      'mesh-injector',
      false,
      PatchStrategy.ServerSideApply,
    );
    // Orrery re-renders (a new env value): both the sidecar and MESH survive.
    await client.apply(dep([{ name: 'A', value: '2' }]));
    const d = (await get('apps/v1', 'Deployment', ns, 'd'))!;
    const containers = (spec(d)!.template as { spec: { containers: Array<{ name: string; env?: Array<{ name: string; value: string }> }> } }).spec.containers;
    expect(containers.map((c) => c.name).sort()).toEqual(['runtime', 'sidecar']);
    expect(containers.find((c) => c.name === 'runtime')!.env).toEqual(expect.arrayContaining([{ name: 'A', value: '2' }, { name: 'MESH', value: 'on' }]));
  });

  it('a field of a rendered child changed by another manager is taken back, and the takeover is reported (log line and Warning Event)', async () => {
    const ns = await freshNs();
    const logs: string[] = [];
    const owner = new KubeClient(adminKubeConfig(), { log: (m) => logs.push(m) });
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'rendered', namespace: ns },
      spec: { replicas: 0, selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'runtime', image: DEFAULT_RUNTIME_IMAGE }] } } },
    };
    await owner.apply(dep);
    // Someone edits the image Orrery renders.
    // The deployment controller writes status meanwhile: like kubectl edit, retry on a stale resourceVersion.
    for (let attempt = 0; ; attempt++) {
      const cur = (await get('apps/v1', 'Deployment', ns, 'rendered'))!;
      (spec(cur)!.template as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image = 'evil/image:1';
      try {
        await client.objects.replace(cur, undefined, undefined, 'kubectl-edit');
        break;
      } catch (err) {
        if ((err as { code?: number }).code !== 409 || attempt >= 5) throw err;
      }
    }
    await owner.apply(dep);
    const after = (await get('apps/v1', 'Deployment', ns, 'rendered'))!;
    expect((spec(after)!.template as { spec: { containers: Array<{ image: string }> } }).spec.containers[0]!.image).toBe(DEFAULT_RUNTIME_IMAGE);
    expect(logs.join('\n')).toContain('.spec.template.spec.containers[name="runtime"].image (owned by "kubectl-edit")');
    // The recorder writes the Event after the apply returns: wait until it is there (an empty list is not done).
    const events = await eventually('the Warning Event', async () => {
      const found = (await client.list('v1', 'Event', ns)).items.filter((e) => (e as { reason?: string }).reason === 'FieldsTakenOver');
      return found.length > 0 ? found : undefined;
    });
    expect(events[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Deployment', name: 'rendered' } });
    // The first try was not forced: the conflict was seen, not skipped.
    const patches = auditEvents((e) => e.verb === 'patch' && e.objectRef?.namespace === ns && e.objectRef.name === 'rendered');
    expect(patches.slice(-2).map((e) => [e.responseStatus?.code, new URL(e.requestURI, 'https://x').searchParams.get('force')])).toEqual([[409, 'false'], [200, 'true']]);
  });

  it('status goes through the status subresource only, without bumping generation', async () => {
    const ns = await freshNs();
    await client.apply(fnObj(ns, 'a'));
    // The main resource ignores status (the CRD declares the status subresource).
    await client.apply({ ...fnObj(ns, 'a'), status: { url: 'ignored' } });
    expect((await get(GV, 'Function', ns, 'a'))!.status).toBeUndefined();
    await client.applyStatus('Function', ns, 'a', { observedGeneration: 1, url: 'http://x' });
    const stored = (await get(GV, 'Function', ns, 'a'))!;
    expect(stored.status).toEqual({ observedGeneration: 1, url: 'http://x' });
    expect(stored.metadata.generation).toBe(1);
    const statusPatch = auditEvents((e) => e.verb === 'patch' && e.objectRef?.namespace === ns && e.objectRef.subresource === 'status');
    expect(statusPatch).toHaveLength(1);
    expect(statusPatch[0]!.requestURI).toContain(`/apis/orrery.dev/v1alpha1/namespaces/${ns}/functions/a/status`);
    await client.apply(fnObj(ns, 'a', { traffic: [{ latestRevision: true, percent: 100 }] }));
    expect((await get(GV, 'Function', ns, 'a'))!.metadata.generation).toBe(2);
  });

  it('read-modify-write retries when another writer got there first (a real 409), and gives up after its attempts', async () => {
    const ns = await freshNs();
    await client.apply(fnObj(ns, 'a'));
    // Before each of our first `rivals` writes, another writer changes the object: the API server
    // then refuses our write, whose resourceVersion is stale.
    class RivalledClient extends KubeClient {
      rivalWrites = 0;
      constructor(private readonly rivals: number) {
        super(adminKubeConfig());
      }
      override async replace<T extends KubeObject>(obj: T): Promise<T> {
        if (this.rivalWrites < this.rivals) {
          this.rivalWrites++;
          const cur = (await this.get<T>(obj.apiVersion, obj.kind, obj.metadata.namespace!, obj.metadata.name))!;
          await super.replace({ ...cur, metadata: { ...cur.metadata, annotations: { rival: String(this.rivalWrites) } } });
        }
        return super.replace(obj);
      }
    }
    const twice = new RivalledClient(2);
    let retries = 0;
    const out = await twice.update(GV, 'Function', ns, 'a', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: ['x.dev/y'] } }), { onRetry: () => retries++ });
    expect(retries).toBe(2);
    expect(out?.metadata.finalizers).toEqual(['x.dev/y']);
    expect((await get(GV, 'Function', ns, 'a'))!.metadata.annotations).toEqual({ rival: '2' });
    const always = new RivalledClient(5);
    const err = await always.update(GV, 'Function', ns, 'a', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }), { attempts: 3 }).catch((e: unknown) => e);
    expect(statusCode(err)).toBe(409);
    expect(always.rivalWrites).toBe(3);
    expect((await get(GV, 'Function', ns, 'a'))!.metadata.finalizers).toEqual(['x.dev/y']);
    // Nobody serves this finalizer: take it off, or the namespace could never be deleted.
    await client.update(GV, 'Function', ns, 'a', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }));
  });

  it('replicas set through the scale subresource survive a re-apply of the Deployment', async () => {
    const ns = await freshNs();
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: DEFAULT_RUNTIME_IMAGE }] } } },
    };
    await client.apply(dep);
    await client.scaleDeployment(ns, 'd', 0);
    await client.scaleDeployment(ns, 'd', 3);
    const scale = auditEvents((e) => e.objectRef?.namespace === ns && e.objectRef.subresource === 'scale' && e.verb === 'patch');
    expect(scale).toHaveLength(2);
    await client.apply(dep);
    expect(spec(await get('apps/v1', 'Deployment', ns, 'd'))).toMatchObject({ replicas: 3 });
    await client.scaleDeployment(ns, 'd', 0);
  });
});

describe('the Function operator on a real API server and controller manager', () => {
  it('a Function yields a Revision and a Deployment + Service owned by it; status; a new template makes a new revision', { timeout: 120_000 }, async () => {
    const ns = await freshNs();
    const op = new KubernetesFunctionOperator({ client, namespace: ns });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { image: DEFAULT_RUNTIME_IMAGE, poolSize: 1 } });
    await client.apply(fnObj(ns, 'hello'));
    const rev = await eventually('revision', () => get(GV, 'Revision', ns, 'hello-00001'));
    const fn = (await get(GV, 'Function', ns, 'hello'))!;
    expect(rev.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Function', uid: fn.metadata.uid, controller: true, blockOwnerDeletion: true })]);
    const dep = await eventually('deployment', () => get('apps/v1', 'Deployment', ns, 'hello-00001-deployment'));
    const svc = await eventually('service', () => get('v1', 'Service', ns, 'hello-00001'));
    const code = (await get('v1', 'ConfigMap', ns, 'hello-00001-code'))!;
    for (const child of [dep, svc, code]) {
      expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Revision', uid: rev.metadata.uid })]);
      expect(child.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'orrery-operator', operation: 'Apply' }));
    }
    expect(await get('v1', 'ServiceAccount', ns, 'orrery-fn-hello')).toBeDefined();
    expect(JSON.stringify(spec(dep))).toContain(DEFAULT_RUNTIME_IMAGE);
    // The process kubelet runs the runtime: the Deployment becomes ready, and so does the revision.
    await eventually(
      'function ready',
      async () => ((await get(GV, 'Function', ns, 'hello'))?.status as { latestReadyRevision?: string } | undefined)?.latestReadyRevision === 'hello-00001',
      90_000,
    );
    expect((await get(GV, 'Revision', ns, 'hello-00001'))!.status).toMatchObject({ readyWorkers: 1, desiredScale: 1 });
    const pool = await eventually('pool', () => get('apps/v1', 'Deployment', ns, 'orrery-pool-nodejs'));
    expect(spec(pool)).toMatchObject({ replicas: 1 });
    await client.apply(fnObj(ns, 'hello', { template: { source: { inline: 'export default () => "v2"' }, autoscaling: { minScale: 2 } } }));
    await eventually('second revision', () => get(GV, 'Revision', ns, 'hello-00002'));
    await eventually('scaled via the subresource', async () => spec(await get('apps/v1', 'Deployment', ns, 'hello-00002-deployment'))?.replicas === 2);
    expect(auditEvents((e) => e.objectRef?.namespace === ns && e.objectRef.name === 'hello-00002-deployment' && e.objectRef.subresource === 'scale').length).toBeGreaterThan(0);
  });

  it('garbage collection: deleting a Function removes its Revisions, Deployments, Services, ConfigMaps and Secrets; the keyspace finalizer runs first', { timeout: 120_000 }, async () => {
    const ns = await freshNs();
    const cleaned: string[] = [];
    const op = new KubernetesFunctionOperator({
      client,
      namespace: ns,
      masterKey: Buffer.alloc(32, 7),
      stateUrl: 'http://statesvc.invalid:8080',
      deleteKeyspace: async (n, k) => {
        // The children must all still be there when the cleanup runs: the finalizer comes first.
        if (await get(GV, 'Revision', n, 'cart-00001')) cleaned.push(`${n}/${k}`);
      },
    });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply(fnObj(ns, 'cart', { state: { keyspace: 'carts' } }, { annotations: { [KEYSPACE_POLICY_ANNOTATION]: 'delete' } }));
    await eventually('finalizer', async () => (await get(GV, 'Function', ns, 'cart'))?.metadata.finalizers?.includes(KEYSPACE_FINALIZER));
    const children: Array<[string, string, string]> = [
      [GV, 'Revision', 'cart-00001'],
      ['apps/v1', 'Deployment', 'cart-00001-deployment'],
      ['v1', 'Service', 'cart-00001'],
      ['v1', 'ConfigMap', 'cart-00001-code'],
      ['v1', 'Secret', 'cart-00001-state'],
      ['v1', 'ServiceAccount', 'orrery-fn-cart'],
    ];
    for (const [v, k, n] of children) await eventually(`${k} ${n}`, () => get(v, k, ns, n));
    // ReplicaSets and Pods below the Deployment are the controller manager's own children.
    await eventually('a ReplicaSet', async () => (await client.list('apps/v1', 'ReplicaSet', ns)).items.length > 0);
    await client.delete(GV, 'Function', ns, 'cart');
    await eventually('Function gone', async () => !(await get(GV, 'Function', ns, 'cart')), 60_000);
    expect(cleaned).toEqual([`${ns}/carts`]);
    for (const [v, k, n] of children) await eventually(`${k} ${n} collected`, async () => !(await get(v, k, ns, n)), 90_000);
    await eventually('ReplicaSets collected', async () => (await client.list('apps/v1', 'ReplicaSet', ns)).items.length === 0, 90_000);
    // The collector, not the operator, deleted the children.
    const gcDeletes = auditEvents((e) => e.verb === 'delete' && e.objectRef?.namespace === ns && e.objectRef.resource === 'revisions');
    expect(gcDeletes.length).toBeGreaterThan(0);
    // The collector may retry a delete; every one is its own.
    expect(new Set(gcDeletes.map((e) => e.user.username))).toEqual(new Set(['system:serviceaccount:kube-system:generic-garbage-collector']));
  });

  it('revision garbage collection: old revisions no traffic names are deleted by the operator, and their Deployments, Services and ConfigMaps by the garbage collector', { timeout: 120_000 }, async () => {
    const ns = await freshNs();
    const op = new KubernetesFunctionOperator({ client, namespace: ns, revisionGc: { keep: 20, minAgeMs: 0 } });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { image: DEFAULT_RUNTIME_IMAGE, poolSize: 1 } });
    // keep 0 (the Function's own setting beats the operator's 20), no minimum age; traffic pins the first revision.
    const gc = { revisionGC: { keep: 0, minAge: '0s' } };
    await client.apply(fnObj(ns, 'old', gc));
    await eventually('first revision', () => get(GV, 'Revision', ns, 'old-00001'));
    const pinned = { ...gc, traffic: [{ revisionName: 'old-00001', percent: 100 }] };
    for (const v of [2, 3]) {
      await client.apply(fnObj(ns, 'old', { ...pinned, template: { source: { inline: `export default () => "v${v}"` } } }));
      await eventually(`revision ${v}`, () => get(GV, 'Revision', ns, `old-0000${v}`));
    }
    // Kept: old-00001 (traffic names it) and old-00003 (the latest created); old-00002 goes.
    await eventually('old-00002 collected', async () => !(await get(GV, 'Revision', ns, 'old-00002')), 60_000);
    expect(await get(GV, 'Revision', ns, 'old-00001')).toBeDefined();
    expect(await get(GV, 'Revision', ns, 'old-00003')).toBeDefined();
    for (const [v, k, n] of [['apps/v1', 'Deployment', 'old-00002-deployment'], ['v1', 'Service', 'old-00002'], ['v1', 'ConfigMap', 'old-00002-code']] as const) {
      await eventually(`${k} ${n} collected`, async () => !(await get(v, k, ns, n)), 90_000);
    }
    // The operator deleted the Revision (not the collector), and said so on the Function.
    const deletes = auditEvents((e) => e.verb === 'delete' && e.objectRef?.namespace === ns && e.objectRef.resource === 'revisions' && e.objectRef.name === 'old-00002');
    expect(deletes.length).toBeGreaterThan(0);
    expect(deletes[0]!.user.username).not.toBe('system:serviceaccount:kube-system:generic-garbage-collector');
    // Events are written after the reconcile, asynchronously.
    await eventually('a RevisionCollected Event naming old-00002', async () =>
      (await client.list('v1', 'Event', ns)).items.some((e) => (e as { reason?: string }).reason === 'RevisionCollected' && String((e as { message?: string }).message).includes('old-00002')),
    );
  });

  it('re-checks the rule that reads another object: an Environment turned "infinite" under a stateful Function stops its rollout with a clear condition', { timeout: 60_000 }, async () => {
    const ns = await freshNs();
    const op = new KubernetesFunctionOperator({ client, namespace: ns });
    await op.start();
    cleanups.push(() => op.stop());
    const env = (allowed: string): KubeObject => ({ apiVersion: GV, kind: 'Environment', metadata: { name: 'shared', namespace: ns }, spec: { allowedFunctionsPerContainer: allowed } });
    await client.apply(env('single'));
    await client.apply(fnObj(ns, 'keeper', { template: { environment: 'shared', executor: 'pool', source: { inline: 'export default () => "v1"' } }, state: {} }));
    await eventually('first revision', () => get(GV, 'Revision', ns, 'keeper-00001'));
    // No webhook here: the API server takes the Environment change, as it would with the webhook off.
    await client.apply(env('infinite'));
    const cond = await eventually('ConfigurationsReady=False', async () => {
      const c = ((await get(GV, 'Function', ns, 'keeper'))?.status as { conditions?: Array<{ type: string; status: string; reason: string; message: string }> } | undefined)?.conditions?.find((x) => x.type === 'ConfigurationsReady');
      return c?.status === 'False' ? c : undefined;
    });
    expect(cond.reason).toBe('state_environment_infinite');
    expect(cond.message).toContain(`Environment ${ns}/shared is "infinite"`);
    // A new template is not rolled out while the rule fails; it is once the Environment is fixed.
    await client.apply(fnObj(ns, 'keeper', { template: { environment: 'shared', executor: 'pool', source: { inline: 'export default () => "v2"' } }, state: {} }));
    await new Promise((r) => setTimeout(r, 2000));
    expect(await get(GV, 'Revision', ns, 'keeper-00002')).toBeUndefined();
    await client.apply(env('single'));
    await eventually('the second revision once the Environment allows it', () => get(GV, 'Revision', ns, 'keeper-00002'));
  });

  it('the KPA scales a revision through the scale subresource: to zero when idle, up on a poke and on load', { timeout: 60_000 }, async () => {
    const ns = await freshNs();
    const kpa = { ...KPA_DEFAULTS, stableWindowMs: 1000, scaleToZeroGracePeriodMs: 300, tickMs: 50 };
    const op = new KubernetesFunctionOperator({ client, namespace: ns, kpa });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply(fnObj(ns, 'elastic'));
    const replicas = async () => spec(await get('apps/v1', 'Deployment', ns, 'elastic-00001-deployment'))?.replicas;
    await eventually('initial scale 1', async () => (await replicas()) === 1);
    await eventually('scaled to zero', async () => (await replicas()) === 0, 20_000);
    const status = await eventually('status desiredScale 0', async () => {
      const st = (await get(GV, 'Revision', ns, 'elastic-00001'))!.status as { desiredScale: number; lastDecision: string; autoscalerMode: string };
      return st.desiredScale === 0 && st;
    });
    expect(status.autoscalerMode).toBe('stable');
    expect(status.lastDecision).toContain('idle');
    op.autoscaler.poke(ns, 'elastic-00001', 1, 'router-a');
    await eventually('woken by a poke', async () => (await replicas()) === 1, 10_000);
    const load = setInterval(() => op.autoscaler.recordStats('router-a', [{ namespace: ns, function: 'elastic', revision: 'elastic-00001', averageConcurrency: 300, requests: 300, windowMs: 1000 }]), 50);
    try {
      await eventually('scaled up on load', async () => (await replicas()) === 5, 20_000);
    } finally {
      clearInterval(load);
    }
    expect(auditEvents((e) => e.objectRef?.namespace === ns && e.objectRef.name === 'elastic-00001-deployment' && e.objectRef.subresource === 'scale').length).toBeGreaterThanOrEqual(3);
  });

  it('finalizer flow: policy delete holds the Function until cleanup; retain needs no finalizer', { timeout: 60_000 }, async () => {
    const ns = await freshNs();
    const deleted: string[] = [];
    const op = new KubernetesFunctionOperator({ client, namespace: ns, deleteKeyspace: async (n, k) => void deleted.push(`${n}/${k}`) });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply(fnObj(ns, 'kept', { state: { keyspace: 'kept-ks' } }));
    await client.apply(fnObj(ns, 'wiped', { state: { keyspace: 'wiped-ks' } }, { annotations: { [KEYSPACE_POLICY_ANNOTATION]: 'delete' } }));
    await eventually('finalizer added', async () => (await get(GV, 'Function', ns, 'wiped'))?.metadata.finalizers?.includes(KEYSPACE_FINALIZER));
    await eventually('revision', () => get(GV, 'Revision', ns, 'kept-00001'));
    expect((await get(GV, 'Function', ns, 'kept'))!.metadata.finalizers ?? []).toEqual([]);
    await op.stop();
    await client.delete(GV, 'Function', ns, 'wiped');
    const held = (await get(GV, 'Function', ns, 'wiped'))!;
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    const op2 = new KubernetesFunctionOperator({ client, namespace: ns, deleteKeyspace: async (n, k) => void deleted.push(`${n}/${k}`) });
    await op2.start();
    cleanups.push(() => op2.stop());
    await eventually('object gone', async () => !(await get(GV, 'Function', ns, 'wiped')));
    expect(deleted).toEqual([`${ns}/wiped-ks`]);
    await client.delete(GV, 'Function', ns, 'kept');
    await eventually('kept gone', async () => !(await get(GV, 'Function', ns, 'kept')));
    expect(deleted).toEqual([`${ns}/wiped-ks`]);
  });
});
