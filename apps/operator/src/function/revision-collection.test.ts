import { describe, expect, it } from 'vitest';
import type { OrreryFunction, Revision } from '@orrery/spec';
import { DEFAULT_REVISION_GC, planRevisionCollection, revisionGcSettings } from './revision-collection.ts';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-12-03T12:00:00Z');

/** Revisions fn-00001 … fn-0000n, revision i created `ageHours(i)` hours before NOW. */
function revisions(n: number, ageHours: (i: number) => number = (i) => 100 - i): Revision[] {
  return Array.from({ length: n }, (_, k) => {
    const i = k + 1;
    return {
      apiVersion: 'orrery.dev/v1alpha1',
      kind: 'Revision',
      metadata: { name: `fn-${String(i).padStart(5, '0')}`, namespace: 'default', creationTimestamp: new Date(NOW - ageHours(i) * HOUR).toISOString() },
      spec: { function: 'fn', template: {} },
    } as unknown as Revision;
  });
}

function fn(traffic: Array<{ revisionName?: string; latestRevision?: boolean; percent: number; tag?: string }> = [], status: Partial<NonNullable<OrreryFunction['status']>> = {}): Pick<OrreryFunction, 'spec' | 'status'> {
  return { spec: { traffic, template: {} } as unknown as OrreryFunction['spec'], status: status };
}

const names = (n: number[]) => n.map((i) => `fn-${String(i).padStart(5, '0')}`);

describe('planRevisionCollection', () => {
  it('keeps the newest `keep` non-routed revisions and collects older ones past minAge, oldest first', () => {
    const plan = planRevisionCollection(fn([], { latestCreatedRevision: 'fn-00010', latestReadyRevision: 'fn-00010', traffic: [{ revisionName: 'fn-00010', percent: 100 }] }), revisions(10), { keep: 3, minAgeMs: HOUR }, NOW);
    expect(plan.collect.map((c) => c.name)).toEqual(names([1, 2, 3, 4, 5, 6]));
    expect(plan.kept).toEqual([
      { name: 'fn-00010', because: 'routed' },
      { name: 'fn-00009', because: 'recent' },
      { name: 'fn-00008', because: 'recent' },
      { name: 'fn-00007', because: 'recent' },
    ]);
    expect(plan.collect[0]!.ageMs).toBe(99 * HOUR);
  });

  it('never collects a revision named in spec or status traffic, a tag with 0 % included', () => {
    const f = fn([{ revisionName: 'fn-00002', percent: 0, tag: 'old' }, { latestRevision: true, percent: 100 }], {
      latestCreatedRevision: 'fn-00006',
      latestReadyRevision: 'fn-00006',
      traffic: [{ revisionName: 'fn-00006', percent: 100 }, { revisionName: 'fn-00001', percent: 0, tag: 'previous' }],
    });
    const plan = planRevisionCollection(f, revisions(6), { keep: 0, minAgeMs: 0 }, NOW);
    expect(plan.collect.map((c) => c.name)).toEqual(names([3, 4, 5]));
    expect(plan.kept.map((k) => `${k.name}:${k.because}`)).toEqual(['fn-00006:routed', 'fn-00002:routed', 'fn-00001:routed']);
  });

  it('keeps the latest created (before status knows it) and the latest ready even with keep 0', () => {
    const f = fn([{ revisionName: 'fn-00001', percent: 100 }], { latestCreatedRevision: 'fn-00004', latestReadyRevision: 'fn-00003', traffic: [{ revisionName: 'fn-00001', percent: 100 }] });
    const plan = planRevisionCollection(f, revisions(5), { keep: 0, minAgeMs: 0 }, NOW);
    expect(plan.kept.map((k) => `${k.name}:${k.because}`)).toEqual(['fn-00005:latest-created', 'fn-00004:latest-created', 'fn-00003:latest-ready', 'fn-00001:routed']);
    expect(plan.collect.map((c) => c.name)).toEqual(names([2]));
  });

  it('a revision younger than minAge is kept whatever keep says; young ones use up the keep budget first', () => {
    // Ages: fn-00001 50 h … fn-00006 0 h (10 h apart).
    const plan = planRevisionCollection(fn([], { latestCreatedRevision: 'fn-00006' }), revisions(6, (i) => (6 - i) * 10), { keep: 1, minAgeMs: 25 * HOUR }, NOW);
    // fn-00005 (10 h) and fn-00004 (20 h) are young; they already fill keep = 1, so fn-00003 (30 h) goes.
    expect(plan.kept.map((k) => `${k.name}:${k.because}`)).toEqual(['fn-00006:latest-created', 'fn-00005:young', 'fn-00004:young']);
    expect(plan.collect.map((c) => c.name)).toEqual(names([1, 2, 3]));
    // With a larger budget the first old one is kept as recent.
    const roomy = planRevisionCollection(fn([], { latestCreatedRevision: 'fn-00006' }), revisions(6, (i) => (6 - i) * 10), { keep: 3, minAgeMs: 25 * HOUR }, NOW);
    expect(roomy.kept.map((k) => `${k.name}:${k.because}`)).toEqual(['fn-00006:latest-created', 'fn-00005:young', 'fn-00004:young', 'fn-00003:recent']);
  });

  it('a revision without a creation time is never collected', () => {
    const rs = revisions(3);
    delete (rs[0]!.metadata as { creationTimestamp?: string }).creationTimestamp;
    const plan = planRevisionCollection(fn([], { latestCreatedRevision: 'fn-00003' }), rs, { keep: 0, minAgeMs: 0 }, NOW);
    expect(plan.collect.map((c) => c.name)).toEqual(names([2]));
    expect(plan.kept.map((k) => `${k.name}:${k.because}`)).toEqual(['fn-00003:latest-created', 'fn-00001:young']);
  });

  it('no revisions, nothing to do; fewer than keep, nothing collected', () => {
    expect(planRevisionCollection(fn(), [], DEFAULT_REVISION_GC, NOW)).toEqual({ collect: [], kept: [] });
    expect(planRevisionCollection(fn(), revisions(15), { keep: 20, minAgeMs: 0 }, NOW).collect).toEqual([]);
  });

  it('orders revisions by number, not by name or list order (fn-00010 is newer than fn-00009)', () => {
    const rs = revisions(10).reverse();
    const plan = planRevisionCollection(fn([], { latestCreatedRevision: 'fn-00010' }), rs, { keep: 1, minAgeMs: 0 }, NOW);
    expect(plan.kept.map((k) => k.name)).toEqual(names([10, 9]));
    expect(plan.collect.map((c) => c.name)).toEqual(names([1, 2, 3, 4, 5, 6, 7, 8]));
  });
});

describe('revisionGcSettings', () => {
  it('takes the Function’s fields over the platform’s, field by field', () => {
    const platform = { keep: 20, minAgeMs: 48 * HOUR };
    expect(revisionGcSettings(fn(), platform)).toEqual(platform);
    expect(revisionGcSettings({ spec: { revisionGC: { keep: 3 } } } as never, platform)).toEqual({ keep: 3, minAgeMs: 48 * HOUR });
    expect(revisionGcSettings({ spec: { revisionGC: { minAge: '30m' } } } as never, platform)).toEqual({ keep: 20, minAgeMs: 30 * 60_000 });
    expect(revisionGcSettings({ spec: { revisionGC: { keep: 0, minAge: '0s' } } } as never, platform)).toEqual({ keep: 0, minAgeMs: 0 });
  });

  it('defaults to Knative’s: 20 revisions, 48 hours', () => {
    expect(DEFAULT_REVISION_GC).toEqual({ keep: 20, minAgeMs: 48 * HOUR });
  });
});
