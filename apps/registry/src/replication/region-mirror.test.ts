import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Instance } from '../model/instance.ts';
import { RegionMirror } from './region-mirror.ts';

const inst = (id: string, v = 'v1'): Instance =>
  ({ namespace: 'prod', service: 'company.trade.order.order-center.api', instanceId: id, zone: 'az1', labels: { version: v }, metadata: {}, endpoints: [], leaseTtlSeconds: 30, revision: 1, createRevision: 1, leaseId: '1' }) as unknown as Instance;

describe('RegionMirror', () => {
  it('a snapshot replaces the set; upserts put, deletes remove; the revision is the resume point', () => {
    const m = new RegionMirror();
    m.apply({ type: 'upsert', revision: 3, instance: inst('stale') });
    m.apply({ type: 'snapshot', revision: 10, instances: [inst('a'), inst('b')] });
    expect([...m.values()].map((i) => i.instanceId)).toEqual(['a', 'b']);
    expect(m.synced).toBe(true);
    m.apply({ type: 'upsert', revision: 11, instance: inst('a', 'v2') });
    m.apply({ type: 'delete', revision: 12, instance: inst('b') });
    expect([...m.values()].map((i) => [i.instanceId, i.labels.version])).toEqual([['a', 'v2']]);
    expect(m.revision).toBe(12);
    m.restart();
    expect(m.revision).toBe(0);
  });

  it('resumes from the stream position (the SSE id), which stands before a revision while more of it follows', () => {
    const m = new RegionMirror();
    m.apply({ type: 'snapshot', revision: 10, instances: [] }, 10);
    m.apply({ type: 'upsert', revision: 12, instance: inst('a') }, 11);
    expect(m.revision).toBe(11);
    m.apply({ type: 'upsert', revision: 12, instance: inst('b') }, 12);
    expect(m.revision).toBe(12);
  });

  it('equals a plain map of the last event per instance since the last snapshot (property)', () => {
    const ev = fc.oneof(
      fc.record({ type: fc.constant('upsert' as const), id: fc.constantFrom('a', 'b', 'c'), v: fc.constantFrom('v1', 'v2') }),
      fc.record({ type: fc.constant('delete' as const), id: fc.constantFrom('a', 'b', 'c') }),
      fc.record({ type: fc.constant('snapshot' as const), ids: fc.uniqueArray(fc.constantFrom('a', 'b', 'c')) }),
    );
    fc.assert(
      fc.property(fc.array(ev, { maxLength: 40 }), (events) => {
        const m = new RegionMirror();
        const model = new Map<string, string>();
        events.forEach((e, i) => {
          if (e.type === 'snapshot') {
            m.apply({ type: 'snapshot', revision: i + 1, instances: e.ids.map((id) => inst(id)) });
            model.clear();
            for (const id of e.ids) model.set(id, 'v1');
          } else if (e.type === 'upsert') {
            m.apply({ type: 'upsert', revision: i + 1, instance: inst(e.id, e.v) });
            model.set(e.id, e.v);
          } else {
            m.apply({ type: 'delete', revision: i + 1, instance: inst(e.id) });
            model.delete(e.id);
          }
        });
        const got = [...m.values()].map((x) => `${x.instanceId}=${x.labels.version}`).sort();
        return got.join() === [...model].map(([k, v]) => `${k}=${v}`).sort().join() && m.revision === events.length;
      }),
    );
  });
});
