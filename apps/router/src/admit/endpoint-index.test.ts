import { describe, expect, it } from 'vitest';
import { admit } from './admit.ts';
import { namespacedKey } from '../routing/namespaced-key.ts';
import { EndpointIndex, type EndpointRecord } from './endpoint-index.ts';

const rec = (revision: string, address: string, ready = true): EndpointRecord => ({ namespace: 'ns', function: 'f', revision, address, ready });

describe('EndpointIndex', () => {
  it('keeps Endpoint objects (and their in-flight counts) across snapshots while the address stays', () => {
    const idx = new EndpointIndex();
    idx.replace([rec('f-00001', 'a:1'), rec('f-00001', 'b:1')]);
    const key = namespacedKey('ns', 'f-00001');
    const a = admit(idx.ready(key), 1);
    const held = a.endpoint!;
    const change = idx.replace([rec('f-00001', held.address), rec('f-00001', 'c:1')]);
    expect(idx.ready(key)).toContain(held);
    expect(held.inflight).toBe(1);
    a.release();
    expect(held.inflight).toBe(0);
    expect(change.changedRevisions).toEqual([key]);
    expect(change.changedAddresses).toEqual(['c:1']);
    expect(change.removedAddresses).toEqual([held.address === 'a:1' ? 'b:1' : 'a:1']);
  });

  it('leaves not-ready endpoints out of the snapshot and reports readiness flips as changes', () => {
    const idx = new EndpointIndex();
    const key = namespacedKey('ns', 'f-00001');
    idx.replace([rec('f-00001', 'a:1', false)]);
    expect(idx.ready(key)).toHaveLength(0);
    const c = idx.replace([rec('f-00001', 'a:1', true)]);
    expect(idx.ready(key).map((e) => e.address)).toEqual(['a:1']);
    expect(c.changedAddresses).toEqual(['a:1']);
    expect(c.changedRevisions).toEqual([key]);
    const none = idx.replace([rec('f-00001', 'a:1', true)]);
    expect(none.changedRevisions).toEqual([]);
    expect(idx.replace([]).changedRevisions).toEqual([key]);
    expect(idx.ready(key)).toHaveLength(0);
  });
});
