import { describe, expect, it } from 'vitest';
import { FunctionSchema, RevisionSchema, type OrreryFunction, type Revision } from '@orrery/spec';
import { setCondition } from './conditions.ts';
import { revisionToCreate, sortRevisions } from './function-revisions.ts';
import { functionStatus, routableRevisions } from './function-status.ts';

const now = new Date('2026-11-30T12:00:00Z');

function fn(inline: string, traffic: unknown[] = [], generation = 1): OrreryFunction {
  return FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'counter', namespace: 'default', uid: 'u-1', generation },
    spec: { template: { source: { inline } }, traffic },
  });
}

function rev(n: number, inline: string, ready: boolean | 'failed' = true): Revision {
  return RevisionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Revision',
    metadata: { name: `counter-${String(n).padStart(5, '0')}`, namespace: 'default' },
    spec: { function: 'counter', template: fn(inline).spec.template },
    status: {
      readyWorkers: ready === true ? 1 : 0,
      desiredScale: 1,
      actualScale: 1,
      conditions: [{ type: 'Ready', status: ready === true ? 'True' : ready === 'failed' ? 'False' : 'Unknown', reason: ready === 'failed' ? 'WorkerCrashing' : 'x', message: 'boom' }],
    },
  });
}

describe('revisionToCreate', () => {
  it('creates revision 00001 for a new function, owned and labelled', () => {
    const r = revisionToCreate(fn('a'), [])!;
    expect(r.metadata.name).toBe('counter-00001');
    expect(r.metadata.labels?.['orrery.dev/function']).toBe('counter');
    expect(r.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Function', name: 'counter', uid: 'u-1', controller: true });
    expect(r.spec.function).toBe('counter');
    expect(r.spec.template).toEqual(fn('a').spec.template);
  });
  it('creates nothing when the newest revision already has the template', () => {
    expect(revisionToCreate(fn('b'), [rev(1, 'a'), rev(2, 'b')])).toBeUndefined();
  });
  it('numbers after the highest existing revision, even when the template matches an older one', () => {
    expect(revisionToCreate(fn('a'), [rev(2, 'b'), rev(1, 'a')])!.metadata.name).toBe('counter-00003');
    expect(revisionToCreate(fn('c'), [rev(7, 'x')])!.metadata.name).toBe('counter-00008');
  });
  it('does not share the template object with the function', () => {
    const f = fn('a');
    const r = revisionToCreate(f, [])!;
    expect(r.spec.template).not.toBe(f.spec.template);
  });
  it('sorts by number, not by string', () => {
    const names = sortRevisions([rev(10, 'a'), rev(9, 'a'), rev(100, 'a')]).map((r) => r.metadata.name);
    expect(names).toEqual(['counter-00009', 'counter-00010', 'counter-00100']);
  });
});

describe('functionStatus', () => {
  it('resolves latestRevision to the latest READY revision and is Ready', () => {
    const s = functionStatus({ fn: fn('b'), revisions: [rev(1, 'a'), rev(2, 'b', false)], routerUrl: 'http://r:1', now });
    expect(s.latestCreatedRevision).toBe('counter-00002');
    expect(s.latestReadyRevision).toBe('counter-00001');
    expect(s.traffic).toEqual([{ revisionName: 'counter-00001', percent: 100, latestRevision: true }]);
    expect(s.url).toBe('http://r:1/default/counter');
    const byType = Object.fromEntries(s.conditions!.map((c) => [c.type, c.status]));
    expect(byType).toEqual({ ConfigurationsReady: 'Unknown', RoutesReady: 'True', Ready: 'Unknown', Reconciling: 'True' });
    expect(s.conditions!.find((c) => c.type === 'Reconciling')).toMatchObject({ reason: 'RevisionPending', message: 'waiting for counter-00002 to become ready' });
  });
  it('is Ready when the latest revision is ready and every target resolves', () => {
    const traffic = [
      { revisionName: 'counter-00001', percent: 90 },
      { latestRevision: true, percent: 10, tag: 'canary' },
    ];
    const s = functionStatus({ fn: fn('b', traffic), revisions: [rev(1, 'a'), rev(2, 'b')], now });
    expect(s.traffic).toEqual([
      { revisionName: 'counter-00001', percent: 90 },
      { revisionName: 'counter-00002', percent: 10, tag: 'canary', latestRevision: true },
    ]);
    expect(s.conditions!.find((c) => c.type === 'Ready')!.status).toBe('True');
    expect(s.conditions!.map((c) => c.type)).toEqual(['ConfigurationsReady', 'RoutesReady', 'Ready']);
    expect(s.observedGeneration).toBe(1);
    expect(s.revisions).toEqual([
      { revisionName: 'counter-00001', ready: 1, desired: 1, actual: 1 },
      { revisionName: 'counter-00002', ready: 1, desired: 1, actual: 1 },
    ]);
  });
  it('reports a missing named revision in RoutesReady', () => {
    const s = functionStatus({ fn: fn('a', [{ revisionName: 'counter-00009', percent: 100 }]), revisions: [rev(1, 'a')], now });
    const routes = s.conditions!.find((c) => c.type === 'RoutesReady')!;
    expect(routes.status).toBe('Unknown');
    expect(routes.message).toContain('counter-00009 (no such revision)');
  });
  it('says why before any revision is ready', () => {
    const s = functionStatus({ fn: fn('a'), revisions: [], now });
    expect(s.traffic).toEqual([]);
    expect(s.conditions!.find((c) => c.type === 'RoutesReady')!.message).toContain('no revision is ready yet');
    expect(s.conditions!.find((c) => c.type === 'ConfigurationsReady')!.message).toBe('creating the first revision');
  });
  it('propagates a failed latest revision as ConfigurationsReady=False and Ready=False', () => {
    const s = functionStatus({ fn: fn('b'), revisions: [rev(1, 'a'), rev(2, 'b', 'failed')], now });
    const c = Object.fromEntries(s.conditions!.map((x) => [x.type, x]));
    expect(c.ConfigurationsReady!.status).toBe('False');
    expect(c.ConfigurationsReady!.reason).toBe('WorkerCrashing');
    expect(c.Ready!.status).toBe('False');
    // kstatus (Flux, kpt) reads Stalled=True as Failed; Ready=False alone reads InProgress forever.
    expect(c.Stalled).toMatchObject({ status: 'True', reason: 'WorkerCrashing', message: 'counter-00002: boom' });
    expect(c.Reconciling).toBeUndefined();
  });
  it('latestReadyRevision only advances: a newer revision not Ready for a moment keeps latestRevision traffic and its tag; a failed one hands them back', () => {
    const traffic = [
      { revisionName: 'counter-00001', percent: 90, tag: 'stable' },
      { latestRevision: true, percent: 10, tag: 'canary' },
    ];
    const f = { ...fn('b', traffic), status: { latestReadyRevision: 'counter-00002' } } as OrreryFunction;
    const waking = functionStatus({ fn: f, revisions: [rev(1, 'a'), rev(2, 'b', false)], now });
    expect(waking.latestReadyRevision).toBe('counter-00002');
    expect(waking.traffic).toContainEqual({ revisionName: 'counter-00002', percent: 10, tag: 'canary', latestRevision: true });
    const failed = functionStatus({ fn: f, revisions: [rev(1, 'a'), rev(2, 'b', 'failed')], now });
    expect(failed.latestReadyRevision).toBe('counter-00001');
    expect(failed.traffic).toContainEqual({ revisionName: 'counter-00001', percent: 10, tag: 'canary', latestRevision: true });
    // A newer ready revision still takes over from the kept one.
    const newer = functionStatus({ fn: f, revisions: [rev(1, 'a'), rev(2, 'b', false), rev(3, 'c')], now });
    expect(newer.latestReadyRevision).toBe('counter-00003');
  });
  it('routable revisions are those with percent > 0 or a tag', () => {
    const r = routableRevisions({
      traffic: [
        { revisionName: 'a', percent: 100 },
        { revisionName: 'b', percent: 0, tag: 'x' },
        { revisionName: 'c', percent: 0 },
      ],
    });
    expect([...r].sort()).toEqual(['a', 'b']);
  });
});

describe('setCondition', () => {
  it('keeps lastTransitionTime while the status stays and moves it on a flip', () => {
    const t1 = new Date('2026-01-01T00:00:00Z');
    const t2 = new Date('2026-01-02T00:00:00Z');
    const a = setCondition(undefined, { type: 'Ready', status: 'False', reason: 'A' }, t1);
    const b = setCondition(a, { type: 'Ready', status: 'False', reason: 'B', message: 'still' }, t2);
    expect(b[0]).toMatchObject({ reason: 'B', message: 'still', lastTransitionTime: t1.toISOString() });
    const c = setCondition(b, { type: 'Ready', status: 'True', reason: 'C' }, t2);
    expect(c[0]!.lastTransitionTime).toBe(t2.toISOString());
    expect(c).toHaveLength(1);
  });
});
