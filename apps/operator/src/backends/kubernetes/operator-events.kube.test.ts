/**
 * Events on a real API server (issue 19): the Function operator records core v1 Events that
 * `kubectl describe` lists — a rollout (RevisionCreated → RevisionReady on the Function, Scaled
 * and RevisionReady on the Revision), a revision that never becomes ready (Warning
 * RevisionFailed), and a keyspace another Function owns (Warning KeyspaceConflict) — each about
 * the right object (kind, name, uid), reported by orrery.dev/operator, and never duplicated when
 * the same thing is reconciled again or by the next operator (a new leader term).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@orrery/kube-testenv';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
const cleanups = kube.cleanups;
let client: KubeClient;
beforeAll(() => void (client = kube.client));

type CoreEvent = KubeObject & {
  type: string;
  reason: string;
  message: string;
  count?: number;
  reportingComponent?: string;
  involvedObject: { apiVersion: string; kind: string; name: string; namespace: string; uid?: string };
};

const fnObj = (ns: string, name: string, inline: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns },
  spec: { template: { source: { inline } }, ...extra },
});
const eventsOf = async (ns: string, kind: string, name: string): Promise<CoreEvent[]> =>
  ((await client.list('v1', 'Event', ns)).items as CoreEvent[]).filter((e) => e.involvedObject.kind === kind && e.involvedObject.name === name);
const reasons = (events: CoreEvent[]) => events.map((e) => e.reason).sort();

async function operator(ns: string, extra: Partial<ConstructorParameters<typeof KubernetesFunctionOperator>[0]> = {}): Promise<KubernetesFunctionOperator> {
  const op = new KubernetesFunctionOperator({ client, namespace: ns, ...extra });
  await op.start();
  cleanups.push(() => op.stop());
  return op;
}

describe('Events recorded by the Kubernetes operator', () => {
  it('a rollout: created → ready on the Function, scaled and ready on the Revision; once each, also across a new term', { timeout: 150_000 }, async () => {
    const ns = await kube.freshNs('evroll');
    const op = await operator(ns);
    await client.apply(fnObj(ns, 'hello', 'export default () => "hi"'));
    await eventually('function ready', async () => ((await client.get(GV, 'Function', ns, 'hello'))?.status as { latestReadyRevision?: string } | undefined)?.latestReadyRevision === 'hello-00001', 90_000);
    const fnEvents = await eventually('function events', async () => {
      const l = await eventsOf(ns, 'Function', 'hello');
      return l.some((e) => e.reason === 'RevisionReady') && l.some((e) => e.reason === 'RevisionCreated') ? l : undefined;
    });
    const fn = (await client.get(GV, 'Function', ns, 'hello'))!;
    expect(reasons(fnEvents)).toEqual(['RevisionCreated', 'RevisionReady']);
    expect(fnEvents.find((e) => e.reason === 'RevisionCreated')).toMatchObject({
      type: 'Normal',
      message: 'created revision hello-00001',
      count: 1,
      reportingComponent: 'orrery.dev/operator',
      involvedObject: { apiVersion: GV, kind: 'Function', name: 'hello', namespace: ns, uid: fn.metadata.uid },
    });
    const revEvents = await eventually('revision events', async () => {
      const l = await eventsOf(ns, 'Revision', 'hello-00001');
      return l.some((e) => e.reason === 'RevisionReady') ? l : undefined;
    });
    const rev = (await client.get(GV, 'Revision', ns, 'hello-00001'))!;
    expect(revEvents.find((e) => e.reason === 'Scaled')).toMatchObject({ type: 'Normal', involvedObject: { kind: 'Revision', uid: rev.metadata.uid } });
    expect(revEvents.find((e) => e.reason === 'Scaled')!.message).toMatch(/^scaled from 0 to 1/);

    // Reconcile everything again in this term, then in a fresh one (the next leader starts with
    // empty memory): nothing new happened, so no new Event and no count bump.
    op.functionQueue.add(`${ns}/hello`);
    op.revisionQueue.add(`${ns}/hello-00001`);
    await op.functionQueue.idle();
    await op.revisionQueue.idle();
    await op.stop();
    const next = await operator(ns);
    next.functionQueue.add(`${ns}/hello`);
    await new Promise((r) => setTimeout(r, 3_000));
    await next.functionQueue.idle();
    await next.revisionQueue.idle();
    await client.events.flush();
    const again = [...(await eventsOf(ns, 'Function', 'hello')), ...(await eventsOf(ns, 'Revision', 'hello-00001'))];
    expect(again.map((e) => [e.involvedObject.kind, e.reason, e.count]).sort()).toEqual([...fnEvents, ...revEvents].map((e) => [e.involvedObject.kind, e.reason, e.count]).sort());
  });

  it('a revision that never becomes ready is a Warning RevisionFailed on the Revision and the Function, written once', { timeout: 150_000 }, async () => {
    const ns = await kube.freshNs('evfail');
    await operator(ns, { progressDeadlineSeconds: 5 });
    await client.apply(fnObj(ns, 'broken', 'this is not javascript {'));
    const revFailed = await eventually(
      'revision failure event',
      async () => {
        const l = (await eventsOf(ns, 'Revision', 'broken-00001')).filter((e) => e.reason === 'RevisionFailed');
        return l.length ? l : undefined;
      },
      120_000,
    );
    expect(revFailed).toHaveLength(1);
    expect(revFailed[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Revision', name: 'broken-00001', namespace: ns } });
    expect(revFailed[0]!.message).toMatch(/^ProgressDeadlineExceeded: /);
    const fnFailed = await eventually('function failure event', async () => {
      const l = (await eventsOf(ns, 'Function', 'broken')).filter((e) => e.reason === 'RevisionFailed');
      return l.length ? l : undefined;
    });
    expect(fnFailed).toHaveLength(1);
    expect(fnFailed[0]).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Function', name: 'broken' } });
  });

  it('a keyspace another Function owns is a Warning KeyspaceConflict naming the owner; the owner’s KeyspaceTaken', { timeout: 90_000 }, async () => {
    const ns = await kube.freshNs('evks');
    await operator(ns, { masterKey: Buffer.alloc(32, 3), stateUrl: 'http://statesvc.invalid' });
    await client.apply(fnObj(ns, 'owner', 'export default () => 1', { state: { keyspace: 'shared' } }));
    await eventually('owner revision', () => client.get(GV, 'Revision', ns, 'owner-00001'));
    await new Promise((r) => setTimeout(r, 1_100)); // a later creation second: the owner is first
    await client.apply(fnObj(ns, 'aaa-late', 'export default () => 2', { state: { keyspace: 'shared' } }));
    const conflict = await eventually('conflict event', async () => (await eventsOf(ns, 'Function', 'aaa-late')).find((e) => e.reason === 'KeyspaceConflict'));
    expect(conflict).toMatchObject({ type: 'Warning', count: 1 });
    expect(conflict.message).toContain('owner');
    const taken = await eventually('owner took the keyspace', async () => (await eventsOf(ns, 'Function', 'owner')).find((e) => e.reason === 'KeyspaceTaken'));
    expect(taken).toMatchObject({ type: 'Normal', message: 'owns keyspace shared' });
  });
});
