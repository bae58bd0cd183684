import type { OrreryFunction, Revision } from '@orrery/spec';
import { FunctionSchema, RevisionSchema } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { compileStoreRoutes, routingFingerprint, withResolvedTraffic } from './store-route-source.ts';

const fn = (spec: Record<string, unknown> = {}, status?: Record<string, unknown>): OrreryFunction =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name: 'web', namespace: 'default' }, spec: { template: { source: { inline: 'x' } }, ...spec }, ...(status ? { status } : {}) });
const rev = (name: string, containerConcurrency = 0): Revision =>
  RevisionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name, namespace: 'default' }, spec: { function: 'web', template: { source: { inline: 'x' }, containerConcurrency } } });

describe('store routing source', () => {
  it('without status.traffic routes from spec like the routes file (latestRevision = highest revision)', () => {
    const t = compileStoreRoutes([fn()], [rev('web-00001'), rev('web-00002')]);
    expect(t.get('default', 'web')!.weighted.map((w) => [w.route.revision, w.percent])).toEqual([['web-00002', 100]]);
  });

  it("prefers the operator's resolved status.traffic over spec (latest = latest ready, not newest)", () => {
    const f = fn({ traffic: [{ latestRevision: true, percent: 100 }] }, { traffic: [{ revisionName: 'web-00001', percent: 100, latestRevision: true }] });
    const t = compileStoreRoutes([f], [rev('web-00001'), rev('web-00002')]);
    expect(t.get('default', 'web')!.weighted.map((w) => [w.route.revision, w.percent])).toEqual([['web-00001', 100]]);
    // revision 2 exists but takes no weighted traffic until the operator moves it
    expect(t.revisions.has('default/web-00002')).toBe(true);
  });

  it('keeps tags and 0 % targets from status.traffic, and each revision its own template', () => {
    const f = fn({}, { traffic: [{ revisionName: 'web-00002', percent: 100 }, { revisionName: 'web-00001', percent: 0, tag: 'old' }] });
    const t = compileStoreRoutes([f], [rev('web-00001', 1), rev('web-00002', 4)]);
    const route = t.get('default', 'web')!;
    expect(route.tags.get('old')!.revision).toBe('web-00001');
    expect(route.tags.get('old')!.containerConcurrency).toBe(1);
    expect(route.weighted).toHaveLength(1);
    expect(route.weighted[0]!.route.containerConcurrency).toBe(4);
  });

  it('an empty status.traffic falls back to spec; the Function object is not mutated', () => {
    const f = fn({ traffic: [{ revisionName: 'web-00001', percent: 100 }] }, { traffic: [] });
    expect(withResolvedTraffic(f)).toBe(f);
    const g = fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100, tag: 'a' }] });
    const copy = structuredClone(g);
    expect(withResolvedTraffic(g).spec.traffic).toEqual([{ revisionName: 'web-00001', percent: 100, tag: 'a' }]);
    expect(g).toEqual(copy);
  });

  it('the fingerprint ignores status churn but sees traffic, readiness and spec changes', () => {
    const base = routingFingerprint([fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100 }] })], [rev('web-00001')]);
    const churn = fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100 }], revisions: [{ revisionName: 'web-00001', ready: 3, desired: 3, actual: 3 }] });
    expect(routingFingerprint([churn], [{ ...rev('web-00001'), status: { readyWorkers: 3 } }])).toBe(base);
    expect(routingFingerprint([fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100, tag: 'x' }] })], [rev('web-00001')])).not.toBe(base);
    expect(routingFingerprint([fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100 }] })], [rev('web-00001'), rev('web-00002')])).not.toBe(base);
    const bumped = fn({}, { traffic: [{ revisionName: 'web-00001', percent: 100 }] });
    bumped.metadata.generation = 2;
    expect(routingFingerprint([bumped], [rev('web-00001')])).not.toBe(base);
  });
});
