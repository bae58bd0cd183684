import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KPA_DEFAULTS } from '../../autoscaler/kpa-settings.ts';
import { ElectedOperator } from './elected-operator.ts';
import { KEYSPACE_FINALIZER, KEYSPACE_POLICY_ANNOTATION, KubernetesFunctionOperator } from './function-operator.ts';
import { Informer } from './informer.ts';
import { KubeClient, type KubeObject, kubeConfigFor, statusCode } from './kube-client.ts';
import { LeaderElector } from './leader-election.ts';
import { FakeApiServer, startFakeApiServer } from './testing/fake-apiserver.ts';

const GV = 'orrery.dev/v1alpha1';
let api: FakeApiServer;
let client: KubeClient;
const cleanups: Array<() => Promise<void> | void> = [];
let nsCounter = 0;
const freshNs = () => `t${++nsCounter}`;

async function until<T>(what: string, fn: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const fnObj = (ns: string, name: string, extra: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns, ...meta },
  spec: { template: { source: { inline: 'export default () => "hi"' } }, ...extra },
});

beforeAll(async () => {
  api = await startFakeApiServer();
  client = new KubeClient(kubeConfigFor({ server: api.url }));
});
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(async () => {
  await api.close();
});

describe('fake-apiserver with @kubernetes/client-node', () => {
  it('server-side apply sends the apply content type, field manager orrery-operator and force', async () => {
    const ns = freshNs();
    api.requests.length = 0;
    await client.apply(fnObj(ns, 'a'), { force: false });
    const patch = api.requests.find((r) => r.method === 'PATCH' && r.path.endsWith(`/namespaces/${ns}/functions/a`))!;
    expect(patch.contentType).toBe('application/apply-patch+yaml');
    expect(patch.query).toMatchObject({ fieldManager: 'orrery-operator', force: 'false' });
    await client.apply(fnObj(ns, 'a'));
    expect(api.requests.filter((r) => r.method === 'PATCH').at(-1)!.query.force).toBe('true');
    const stored = api.get(GV, 'Function', ns, 'a')!;
    expect(stored.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'orrery-operator', operation: 'Apply' }));
  });

  it('fake-apiserver refuses strategic merge on custom resources (client-node’s default patch type)', async () => {
    const ns = freshNs();
    await client.apply(fnObj(ns, 'a'));
    const err = await client.objects.patch(fnObj(ns, 'a'), undefined, undefined, 'x').catch((e: unknown) => e);
    expect(statusCode(err)).toBe(415);
  });

  it('apply conflicts with another manager’s field unless forced; dropped fields are removed', async () => {
    const ns = freshNs();
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x', tier: 'web' } }));
    // kubectl takes over a label with a plain update.
    const cur = api.get(GV, 'Function', ns, 'a')!;
    api.put({ ...cur, metadata: { ...cur.metadata, labels: { team: 'y', tier: 'web' } } }, 'kubectl');
    const err = await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x', tier: 'web' } }), { force: false }).catch((e: unknown) => e);
    expect(statusCode(err)).toBe(409);
    const status = JSON.parse(String((err as { body?: unknown }).body)) as { reason: string; details: { causes: Array<{ field: string; message: string }> } };
    expect(status.reason).toBe('Conflict');
    expect(status.details.causes).toEqual([{ type: 'FieldManagerConflict', message: 'conflict with "kubectl"', field: '.metadata.labels.team' }]);
    // Same value is shared ownership, not a conflict; then force wins the field.
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'y', tier: 'web' } }), { force: false });
    await client.apply(fnObj(ns, 'a', {}, { labels: { team: 'x' } }), { force: true });
    const after = api.get(GV, 'Function', ns, 'a')!;
    expect(after.metadata.labels).toEqual({ team: 'x' });
  });

  it('status goes through the status subresource only, without bumping generation', async () => {
    const ns = freshNs();
    await client.apply(fnObj(ns, 'a'));
    await client.apply({ ...fnObj(ns, 'a'), status: { url: 'ignored' } });
    expect(api.get(GV, 'Function', ns, 'a')!.status).toBeUndefined();
    api.requests.length = 0;
    await client.applyStatus('Function', ns, 'a', { observedGeneration: 1, url: 'http://x' });
    const req = api.requests.find((r) => r.method === 'PATCH')!;
    expect(req.path).toBe(`/apis/orrery.dev/v1alpha1/namespaces/${ns}/functions/a/status`);
    expect(req.contentType).toBe('application/apply-patch+yaml');
    expect(req.query.fieldManager).toBe('orrery-operator');
    const stored = api.get(GV, 'Function', ns, 'a')!;
    expect(stored.status).toEqual({ observedGeneration: 1, url: 'http://x' });
    expect(stored.metadata.generation).toBe(1);
    await client.apply(fnObj(ns, 'a', { traffic: [{ latestRevision: true, percent: 100 }] }));
    expect(api.get(GV, 'Function', ns, 'a')!.metadata.generation).toBe(2);
  });

  it('read-modify-write retries on 409 conflicts', async () => {
    const ns = freshNs();
    await client.apply(fnObj(ns, 'a'));
    api.failNext('PUT', `/namespaces/${ns}/functions/a`, 409, 'Conflict', 2);
    let retries = 0;
    const out = await client.update(GV, 'Function', ns, 'a', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: ['x/y'] } }), { onRetry: () => retries++ });
    expect(retries).toBe(2);
    expect(out?.metadata.finalizers).toEqual(['x/y']);
    api.failNext('PUT', `/namespaces/${ns}/functions/a`, 409, 'Conflict', 5);
    await expect(client.update(GV, 'Function', ns, 'a', (o) => ({ ...o, metadata: { ...o.metadata, finalizers: [] } }), { attempts: 3 })).rejects.toMatchObject({ code: 409 });
    api.clearFaults();
  });

  it('replicas set through the scale subresource survive a re-apply of the Deployment', async () => {
    const ns = freshNs();
    const dep: KubeObject = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', namespace: ns },
      spec: { selector: { matchLabels: { a: 'b' } }, template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } } },
    };
    await client.apply(dep);
    await client.scaleDeployment(ns, 'd', 3);
    expect(api.requests.at(-1)).toMatchObject({ method: 'PATCH', path: `/apis/apps/v1/namespaces/${ns}/deployments/d/scale`, contentType: 'application/merge-patch+json' });
    await client.apply(dep);
    expect(api.get('apps/v1', 'Deployment', ns, 'd')!.spec).toMatchObject({ replicas: 3 });
  });
});

describe('informer against the fake-apiserver', () => {
  it('relists after 410 Gone and surfaces what it missed, deletions included', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    await client.apply(fnObj(ns, 'keep'));
    await client.apply(fnObj(ns, 'gone'));
    const inf = new Informer(client, { apiVersion: GV, kind: 'Function', namespace: ns, restartDelayMs: 20 });
    const events: string[] = [];
    inf.on((t, o) => events.push(`${t} ${o.metadata.name}`));
    inf.start();
    cleanups.push(() => inf.stop());
    await inf.hasSynced();
    await until('watch open', () => api.watchCount > 0);
    api.partition();
    await client.apply(fnObj(ns, 'new'));
    await client.delete(GV, 'Function', ns, 'gone');
    api.compact();
    api.heal();
    await until('relist', () => inf.stats.gone >= 1 && inf.cache.has(`${ns}/new`) && !inf.cache.has(`${ns}/gone`));
    expect(inf.stats.lists).toBe(2);
    expect(events).toEqual(expect.arrayContaining(['ADDED new', 'DELETED gone']));
    // And it keeps watching after the relist.
    await client.apply(fnObj(ns, 'later'));
    await until('watch resumed', () => inf.cache.has(`${ns}/later`));
  });

  it('restarts the watch after other errors, resuming from the last resourceVersion', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    const inf = new Informer(client, { apiVersion: GV, kind: 'Function', namespace: ns, restartDelayMs: 20 });
    inf.start();
    cleanups.push(() => inf.stop());
    await inf.hasSynced();
    await until('watch open', () => api.watchCount > 0);
    api.failNext('GET', `/namespaces/${ns}/functions`, 500, 'InternalError', 2);
    api.dropWatches();
    await client.apply(fnObj(ns, 'after-error'));
    await until('event after restart', () => inf.cache.has(`${ns}/after-error`));
    expect(inf.stats.errors).toBeGreaterThanOrEqual(2);
    expect(inf.stats.lists).toBe(1); // no relist needed: the version was still valid
  });
});

describe('function operator on the fake-apiserver', () => {
  it('a Function yields a Revision and a Deployment + Service owned by it, with status', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    const op = new KubernetesFunctionOperator({ client, namespace: ns });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply({ apiVersion: GV, kind: 'Environment', metadata: { name: 'nodejs', namespace: ns }, spec: { image: 'example/rt:1', poolSize: 2 } });
    await client.apply(fnObj(ns, 'hello'));
    const rev = await until('revision', () => api.get(GV, 'Revision', ns, 'hello-00001'));
    const fn = api.get(GV, 'Function', ns, 'hello')!;
    expect(rev.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Function', uid: fn.metadata.uid, controller: true })]);
    const dep = await until('deployment', () => api.get('apps/v1', 'Deployment', ns, 'hello-00001-deployment'));
    const svc = await until('service', () => api.get('v1', 'Service', ns, 'hello-00001'));
    for (const child of [dep, svc, api.get('v1', 'ConfigMap', ns, 'hello-00001-code')!]) {
      expect(child.metadata.ownerReferences).toEqual([expect.objectContaining({ kind: 'Revision', uid: rev.metadata.uid })]);
      expect(child.metadata.managedFields).toContainEqual(expect.objectContaining({ manager: 'orrery-operator' }));
    }
    expect(api.get('v1', 'ServiceAccount', ns, 'orrery-fn-hello')).toBeDefined();
    expect(JSON.stringify(dep.spec)).toContain('example/rt:1');
    await until('function ready', () => {
      const st = api.get(GV, 'Function', ns, 'hello')?.status as { latestReadyRevision?: string } | undefined;
      return st?.latestReadyRevision === 'hello-00001';
    });
    expect(api.get(GV, 'Revision', ns, 'hello-00001')!.status).toMatchObject({ readyWorkers: 1, desiredScale: 1 });
    // The pool executor's Environment gets its warm pool.
    const pool = await until('pool', () => api.get('apps/v1', 'Deployment', ns, 'orrery-pool-nodejs'));
    expect(pool.spec).toMatchObject({ replicas: 2 });
    // A template change makes a new immutable revision.
    await client.apply(fnObj(ns, 'hello', { template: { source: { inline: 'export default () => "v2"' }, autoscaling: { minScale: 2 } } }));
    await until('second revision', () => api.get(GV, 'Revision', ns, 'hello-00002'));
    await until('scaled via subresource', () => (api.get('apps/v1', 'Deployment', ns, 'hello-00002-deployment')?.spec as { replicas?: number } | undefined)?.replicas === 2);
    expect(api.requests.some((r) => r.path.endsWith('/deployments/hello-00002-deployment/scale'))).toBe(true);
    // Deleting the Function garbage-collects everything it owns.
    await client.delete(GV, 'Function', ns, 'hello');
    await until('children collected', () => !api.get(GV, 'Revision', ns, 'hello-00001') && !api.get('apps/v1', 'Deployment', ns, 'hello-00002-deployment'));
  });

  it('the KPA scales a revision through the scale subresource: to zero when idle, up on a poke and on load', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    const kpa = { ...KPA_DEFAULTS, stableWindowMs: 1000, scaleToZeroGracePeriodMs: 300, tickMs: 50 };
    const op = new KubernetesFunctionOperator({ client, namespace: ns, kpa });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply(fnObj(ns, 'elastic'));
    const replicas = () => (api.get('apps/v1', 'Deployment', ns, 'elastic-00001-deployment')?.spec as { replicas?: number } | undefined)?.replicas;
    await until('initial scale 1', () => replicas() === 1);
    // No router reports demand: after the stable window and the grace period the KPA picks zero.
    await until('scaled to zero', () => replicas() === 0, 10_000);
    // The status follows the scale call within the same reconcile.
    const status = await until('status desiredScale 0', () => {
      const st = api.get(GV, 'Revision', ns, 'elastic-00001')!.status as { desiredScale: number; lastDecision: string; autoscalerMode: string };
      return st.desiredScale === 0 && st;
    });
    expect(status.autoscalerMode).toBe('stable');
    expect(status.lastDecision).toContain('idle');
    // A request waits for it: a poke wakes it at once.
    op.autoscaler.poke(ns, 'elastic-00001', 1, 'router-a');
    await until('woken by a poke', () => replicas() === 1, 5_000);
    // Sustained load of 300 concurrent requests at a target of 70 per worker → 5 workers.
    const load = setInterval(() => op.autoscaler.recordStats('router-a', [{ namespace: ns, function: 'elastic', revision: 'elastic-00001', averageConcurrency: 300, requests: 300, windowMs: 1000 }]), 50);
    try {
      await until('scaled up on load', () => replicas() === 5, 10_000);
    } finally {
      clearInterval(load);
    }
    expect(api.requests.filter((r) => r.path.endsWith('/deployments/elastic-00001-deployment/scale')).length).toBeGreaterThanOrEqual(3);
  });

  it('finalizer flow: keyspace deletion policy delete holds the Function until cleanup', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    const deleted: string[] = [];
    const op = new KubernetesFunctionOperator({ client, namespace: ns, deleteKeyspace: async (n, k) => void deleted.push(`${n}/${k}`) });
    await op.start();
    cleanups.push(() => op.stop());
    await client.apply(fnObj(ns, 'kept', { state: { keyspace: 'kept-ks' } }));
    await client.apply(fnObj(ns, 'wiped', { state: { keyspace: 'wiped-ks' } }, { annotations: { [KEYSPACE_POLICY_ANNOTATION]: 'delete' } }));
    await until('finalizer added', () => api.get(GV, 'Function', ns, 'wiped')?.metadata.finalizers?.includes(KEYSPACE_FINALIZER));
    await until('revision', () => api.get(GV, 'Revision', ns, 'kept-00001'));
    // retain (the default) needs no finalizer: nothing external to clean.
    expect(api.get(GV, 'Function', ns, 'kept')!.metadata.finalizers ?? []).toEqual([]);
    await op.stop(); // pause the operator to observe the held object
    await client.delete(GV, 'Function', ns, 'wiped');
    const held = api.get(GV, 'Function', ns, 'wiped')!;
    expect(held.metadata.deletionTimestamp).toBeTruthy();
    const op2 = new KubernetesFunctionOperator({ client, namespace: ns, deleteKeyspace: async (n, k) => void deleted.push(`${n}/${k}`) });
    await op2.start();
    cleanups.push(() => op2.stop());
    await until('object gone', () => !api.get(GV, 'Function', ns, 'wiped'));
    expect(deleted).toEqual([`${ns}/wiped-ks`]);
    await client.delete(GV, 'Function', ns, 'kept');
    await until('kept gone', () => !api.get(GV, 'Function', ns, 'kept'));
    expect(deleted).toEqual([`${ns}/wiped-ks`]);
  });
});

describe('leader election on a Lease (fake-apiserver)', () => {
  it('two operator instances elect exactly one leader and fail over on lease expiry', { timeout: 40_000 }, async () => {
    const ns = freshNs();
    const election = { namespace: ns, name: 'orrery-operator', leaseDurationMs: 2000, renewDeadlineMs: 1200, retryPeriodMs: 200 };
    const a = new ElectedOperator({ client, namespace: ns, election: { ...election, identity: 'a' } });
    const b = new ElectedOperator({ client, namespace: ns, election: { ...election, identity: 'b' } });
    cleanups.push(() => a.stop({ release: false }), () => b.stop({ release: false }));
    let both = 0;
    const sampler = setInterval(() => {
      if (a.isLeader && b.isLeader) both++;
    }, 20);
    cleanups.push(() => clearInterval(sampler));
    a.start();
    b.start();
    const first = await until('a leader', () => (a.isLeader ? a : b.isLeader ? b : undefined));
    const second = first === a ? b : a;
    // Stays one leader across several renewals.
    await new Promise((r) => setTimeout(r, 1500));
    expect(first.isLeader).toBe(true);
    expect(second.isLeader).toBe(false);
    const lease = api.get('coordination.k8s.io/v1', 'Lease', ns, 'orrery-operator')!;
    expect((lease.spec as { holderIdentity: string }).holderIdentity).toBe(first === a ? 'a' : 'b');
    // The leader's operator acts.
    await client.apply(fnObj(ns, 'elected'));
    await until('revision by leader', () => api.get(GV, 'Revision', ns, 'elected-00001'));
    // Crash the leader (no release): the other takes over only after the lease expires.
    const crashedAt = Date.now();
    await first.stop({ release: false });
    await until('failover', () => second.isLeader, 15_000);
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(1500);
    expect(second.terms).toBe(1);
    expect((api.get('coordination.k8s.io/v1', 'Lease', ns, 'orrery-operator')!.spec as { leaseTransitions: number }).leaseTransitions).toBe(1);
    await client.apply(fnObj(ns, 'after-failover'));
    await until('new leader acts', () => api.get(GV, 'Revision', ns, 'after-failover-00001'));
    expect(both).toBe(0);
  });

  it('a leader that cannot renew steps down; a graceful stop releases the lease at once', { timeout: 30_000 }, async () => {
    const ns = freshNs();
    const log: string[] = [];
    const mk = (identity: string) =>
      new LeaderElector(client, {
        namespace: ns,
        name: 'l',
        identity,
        leaseDurationMs: 2000,
        renewDeadlineMs: 800,
        retryPeriodMs: 100,
        onStartedLeading: () => void log.push(`${identity} up`),
        onStoppedLeading: () => void log.push(`${identity} down`),
      });
    const a = mk('a');
    a.start();
    cleanups.push(() => a.stop({ release: false }));
    await until('a leads', () => a.isLeader);
    api.failNext('PUT', `/namespaces/${ns}/leases/l`, 500, 'InternalError', 1000);
    await until('a steps down', () => !a.isLeader, 10_000);
    expect(log).toEqual(['a up', 'a down']);
    api.clearFaults();
    await until('a leads again', () => a.isLeader, 10_000);
    await a.stop();
    const b = mk('b');
    const start = Date.now();
    b.start();
    cleanups.push(() => b.stop({ release: false }));
    await until('b leads after release', () => b.isLeader, 10_000);
    expect(Date.now() - start).toBeLessThan(1500); // released: no need to wait for expiry
  });
});
