import type { Etcd3, IWatchResponse } from 'etcd3';
import { describe, expect, it } from 'vitest';
import type { InstanceRecord } from '../model/instance.ts';
import { parseFilter } from '../query/filter.ts';
import { InstanceIndex, type IndexChange } from './instance-index.ts';
import { KeyLayout } from './keys.ts';

const keys = new KeyLayout('/t');
const SERVICE = 'a.b.c.d.e';

function rec(id: string, labels: Record<string, string>, service = SERVICE): InstanceRecord {
  const [organization, businessDomain, capabilityDomain, application, role] = service.split('.') as [string, string, string, string, string];
  return { namespace: 'ns', service, organization, businessDomain, capabilityDomain, application, role, instanceId: id, zone: '', labels, metadata: {}, endpoints: [], leaseTtlSeconds: 30 };
}

function put(r: InstanceRecord, revision: number) {
  return {
    type: 'Put' as const,
    kv: { key: Buffer.from(keys.instanceKey(r)), value: Buffer.from(JSON.stringify(r)), mod_revision: String(revision), create_revision: String(revision), version: '1', lease: '7' },
    prev_kv: undefined as never,
  };
}
function del(r: InstanceRecord, revision: number) {
  return { type: 'Delete' as const, kv: { key: Buffer.from(keys.instanceKey(r)), value: Buffer.alloc(0), mod_revision: String(revision), create_revision: '0', version: '0', lease: '0' }, prev_kv: undefined as never };
}

/** Feeds watch responses straight into the index (no etcd): the apply path is pure. */
function feed(index: InstanceIndex, revision: number, events: unknown[]): void {
  (index as unknown as { onWatchResponse(r: IWatchResponse): void }).onWatchResponse({ header: { revision: String(revision) }, events } as unknown as IWatchResponse);
}
const filter = (qs: string) => {
  const f = parseFilter(new URLSearchParams(qs));
  if (!f.ok) throw new Error(f.message);
  return f.value;
};

describe('InstanceIndex', () => {
  it('applies puts and deletes, advances the revision, and notifies in order', async () => {
    const index = new InstanceIndex({} as Etcd3, keys, 1000);
    const changes: IndexChange[] = [];
    index.subscribe((c) => changes.push(c));
    const waited = index.waitForRevision(3);
    feed(index, 2, [put(rec('i1', { tier: 'gold' }), 2)]);
    feed(index, 3, [put(rec('i2', { tier: 'std' }), 3), { ...put(rec('x', {}), 3), kv: { ...put(rec('x', {}), 3).kv, key: Buffer.from('/other/key') } }]);
    await waited;
    expect(index.revision).toBe(3);
    expect(index.size()).toBe(2);
    feed(index, 4, [del(rec('i1', {}), 4)]);
    expect(changes.map((c) => `${c.type}:${c.key.split('/').pop()}@${c.revision}`)).toEqual(['put:i1@2', 'put:i2@3', 'delete:i1@4']);
    // A progress notification (no events) moves the revision too.
    feed(index, 9, []);
    expect(index.revision).toBe(9);
    await expect(index.waitForRevision(10, 50)).rejects.toThrow(/did not reach etcd revision 10/);
  });

  it('answers equality selectors through the label index, following label changes', () => {
    const index = new InstanceIndex({} as Etcd3, keys, 1000);
    const events = [];
    for (let i = 0; i < 300; i++) events.push(put(rec(`i${i}`, { tier: i % 100 === 0 ? 'gold' : 'std' }), 2));
    events.push(put(rec('other', { tier: 'gold' }, 'a.b.c.d.f'), 2));
    feed(index, 2, events);
    const gold = filter(`namespace=ns&service=${SERVICE}&selector=tier=gold`);
    expect(index.select(gold).map((i) => i.instanceId)).toEqual(['i0', 'i100', 'i200']);
    expect(index.select(filter(`namespace=ns&service=${SERVICE}&selector=tier%20in%20(gold),!missing`))).toHaveLength(3);
    expect(index.select(filter(`namespace=ns&servicePrefix=a.b.c.d&selector=tier=gold`))).toHaveLength(4);
    feed(index, 3, [put(rec('i100', { tier: 'std' }), 3)]);
    expect(index.select(gold).map((i) => i.instanceId)).toEqual(['i0', 'i200']);
    feed(index, 4, [del(rec('i0', {}), 4)]);
    expect(index.select(gold).map((i) => i.instanceId)).toEqual(['i200']);
    expect(index.select(filter(`namespace=ns&service=${SERVICE}&limit=5`))).toHaveLength(5);
  });

  it('hands back a kept answer while the services it covers are unchanged, and a fresh one after any change to them', async () => {
    let clock = 1_000_000;
    const index = new InstanceIndex({} as Etcd3, keys, 1000, undefined, undefined, () => clock);
    const other = 'a.b.c.d.f';
    feed(index, 2, [put(rec('i1', { tier: 'gold' }), 2), put(rec('i2', { tier: 'gold' }), 2), put(rec('o1', { tier: 'gold' }, other), 2)]);
    const gold = filter(`namespace=ns&service=${SERVICE}&selector=tier=gold`);
    const byPrefix = filter('namespace=ns&servicePrefix=a.b.c.d&selector=tier=gold');
    const first = index.select(gold);
    expect(first.map((i) => i.instanceId)).toEqual(['i1', 'i2']);
    expect(Object.isFrozen(first)).toBe(true);
    expect(index.select(gold)).toBe(first);
    expect(index.select(filter(`namespace=ns&service=${SERVICE}&selector=tier=gold`))).toBe(first);
    const prefixFirst = index.select(byPrefix);
    expect(prefixFirst).toHaveLength(3);

    // A change in another service leaves an exact-service answer standing; a prefix answer covers the namespace.
    feed(index, 3, [put(rec('o2', { tier: 'gold' }, other), 3)]);
    expect(index.select(gold)).toBe(first);
    expect(index.select(byPrefix).map((i) => i.instanceId)).toEqual(['i1', 'i2', 'o1', 'o2']);

    // A change in the service: a new answer with it.
    feed(index, 4, [put(rec('i2', { tier: 'std' }), 4)]);
    const second = index.select(gold);
    expect(second.map((i) => i.instanceId)).toEqual(['i1']);
    expect(index.select(gold)).toBe(second);

    // Another limit or includeExpired is another answer.
    expect(index.select({ ...gold, limit: 0 })).toEqual([]);
    expect(index.select(gold, { includeExpired: true })).toEqual(second);

    // The service emptied and filled again with what it had: no answer kept from before survives.
    feed(index, 5, [del(rec('i1', {}), 5), del(rec('i2', {}), 5)]);
    expect(index.select(gold)).toEqual([]);
    feed(index, 6, [put(rec('i1', { tier: 'gold' }), 6)]);
    const refilled = index.select(gold);
    expect(refilled.map((i) => [i.instanceId, i.revision])).toEqual([['i1', 6]]);

    // The TTL rule: an instance past its TTL without renewal leaves the answer when the clock passes it, timer or not.
    feed(index, 7, [put({ ...rec('t1', { tier: 'gold' }), leaseTtlSeconds: 5, lastHeartbeatAt: clock }, 7)]);
    const withT1 = index.select(gold);
    expect(withT1.map((i) => i.instanceId)).toEqual(['i1', 't1']);
    expect(index.select(gold)).toBe(withT1);
    clock += 60_000;
    expect(index.select(gold).map((i) => i.instanceId)).toEqual(['i1']);
    expect(index.select(gold, { includeExpired: true }).map((i) => i.instanceId)).toEqual(['i1', 't1']);
    await index.close();
  });
});
