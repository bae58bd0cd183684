/**
 * The local operator as a real process: `GET /metrics` after it reconciled a Function (public,
 * counters moved, no secret in it), and `GET /v1/events` telling the Function's story (store
 * token only): revision created → ready, and a revision whose code cannot load → failed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type OperatorEventRecord, type OrreryFunction, OperatorEventListSchema } from '@orrery/spec';
import type { ResourceStore } from '@orrery/store';
import { type LocalOperatorProcess, startLocalOperator } from '../testing/local-operator-process.ts';
import { type SpawnedServer, until } from '../testing/spawn-server.ts';

const fn = (name: string, inline: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'default' },
  spec: { template: { source: { inline }, timeoutSeconds: 5 } },
});

/** The value of one series in Prometheus text, or undefined when it is absent. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line ? Number(line.slice(series.length + 1)) : undefined;
};

describe('operator /metrics and /v1/events on the local backend', () => {
  let local: LocalOperatorProcess;
  let op: SpawnedServer;
  let token = '';
  let store: ResourceStore;
  const scrape = async () => {
    const res = await fetch(`${op.url}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    return res.text();
  };
  const events = async (query: string): Promise<OperatorEventRecord[]> => {
    const res = await fetch(`${op.url}/v1/events?${query}`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return OperatorEventListSchema.parse(await res.json()).events;
  };

  beforeAll(async () => {
    local = await startLocalOperator('orrery-operator-metrics-');
    ({ op, token, store } = local);
  }, 90_000);

  afterAll(async () => {
    await local?.stop();
  });

  it('counts reconciles, KPA decisions and scales after a rollout, without a token and without secrets', async () => {
    const before = await scrape();
    const reconciledBefore = sample(before, 'orrery_operator_reconcile_total{kind="Function",result="success"}') ?? 0;
    expect(sample(before, 'orrery_operator_leader')).toBe(1);

    await store.apply(fn('hello', 'export default () => new Response("hi")'));
    await until(() => store.get('Function', 'default', 'hello'), (f) => (f as OrreryFunction | undefined)?.status?.latestReadyRevision === 'hello-00001', 60_000, 'hello ready');

    const text = await until(scrape, (t) => (sample(t, 'orrery_operator_autoscaler_desired_scale{namespace="default",function="hello",revision="hello-00001"}') ?? 0) >= 1, 30_000, 'desired scale exported');
    expect(sample(text, 'orrery_operator_reconcile_total{kind="Function",result="success"}')).toBeGreaterThan(reconciledBefore);
    expect(sample(text, 'orrery_operator_reconcile_total{kind="Revision",result="success"}')).toBeGreaterThan(0);
    expect(sample(text, 'orrery_operator_reconcile_duration_seconds_count{kind="Revision"}')).toBeGreaterThan(0);
    expect(sample(text, 'orrery_operator_workqueue_depth{kind="Function"}')).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'orrery_operator_autoscaler_decisions_total{namespace="default",function="hello",decision="initial"}')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'orrery_operator_events_total{type="Normal",reason="RevisionCreated",outcome="created"}')).toBeGreaterThanOrEqual(1);
    expect(text).toMatch(/^process_cpu_user_seconds_total /m);
    expect(text).not.toContain(token);
  }, 120_000);

  it('answers 405 for anything but GET /metrics', async () => {
    const res = await fetch(`${op.url}/metrics`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(405);
    expect(await res.json()).toMatchObject({ code: 'method_not_allowed' });
  });

  it('tells a rollout in Events: created → ready on the Function, scaled and ready on the Revision, once each', async () => {
    const story = await until(() => events('namespace=default&kind=Function&name=hello'), (l) => l.some((e) => e.reason === 'RevisionReady'), 30_000, 'function events');
    expect(story.map((e) => e.reason)).toEqual(expect.arrayContaining(['RevisionCreated', 'RevisionReady']));
    const created = story.filter((e) => e.reason === 'RevisionCreated');
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({ type: 'Normal', count: 1, message: 'created revision hello-00001', involvedObject: { kind: 'Function', namespace: 'default', name: 'hello' }, reportingController: 'orrery.dev/operator' });
    const rev = await events('namespace=default&kind=Revision&name=hello-00001');
    expect(rev.find((e) => e.reason === 'Scaled')?.message).toMatch(/^scaled from 0 to 1/);
    expect(rev.filter((e) => e.reason === 'RevisionReady')).toHaveLength(1);
    // Resyncs every 2 s reconcile again: nothing new to tell, so no new Event and no count bump.
    await new Promise((r) => setTimeout(r, 4_500));
    const later = await events('namespace=default&kind=Function&name=hello');
    expect(later.map((e) => [e.reason, e.count])).toEqual(story.map((e) => [e.reason, e.count]));
  }, 60_000);

  it('records a revision whose code cannot load as a Warning RevisionFailed on the Function and the Revision', async () => {
    await store.apply(fn('broken', 'this is not javascript {'));
    const story = await until(() => events('namespace=default&kind=Function&name=broken'), (l) => l.some((e) => e.reason === 'RevisionFailed'), 90_000, 'failure event');
    expect(story.find((e) => e.reason === 'RevisionFailed')).toMatchObject({ type: 'Warning', involvedObject: { kind: 'Function', name: 'broken' } });
    expect(story.find((e) => e.reason === 'RevisionFailed')!.message).toMatch(/^WorkerCrashing: /);
    const rev = await until(() => events('namespace=default&kind=Revision&name=broken-00001'), (l) => l.some((e) => e.reason === 'RevisionFailed'), 30_000, 'revision failure event');
    expect(rev.filter((e) => e.reason === 'RevisionFailed').every((e) => e.type === 'Warning')).toBe(true);
    await store.delete('Function', 'default', 'broken');
    const text = await scrape();
    expect(sample(text, 'orrery_operator_events_total{type="Warning",reason="RevisionFailed",outcome="created"}')).toBeGreaterThanOrEqual(1);
  }, 120_000);

  it('serves Events only with the store token, and refuses a bad query with a stable code', async () => {
    expect((await fetch(`${op.url}/v1/events?namespace=default`)).status).toBe(401);
    const bad = await fetch(`${op.url}/v1/events?namespace=Not_A_Label`, { headers: { authorization: `Bearer ${token}` } });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ code: 'invalid_query' });
    const badKind = await fetch(`${op.url}/v1/events?namespace=default&kind=Pod`, { headers: { authorization: `Bearer ${token}` } });
    expect(badKind.status).toBe(400);
  });
});
