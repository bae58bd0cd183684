import { describe, expect, it } from 'vitest';
import type { Resource } from '@orrery/spec';
import type { WatchEvent } from '@orrery/store';
import { LocalObjectCache } from './local-object-cache.ts';

const obj = (name: string, rv: number, labels?: Record<string, string>, namespace = 'default'): Resource =>
  ({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Revision', metadata: { name, namespace, resourceVersion: String(rv), labels }, spec: {} }) as unknown as Resource;
const ev = (type: WatchEvent['type'], o: Resource): WatchEvent => ({ type, object: o, resourceVersion: Number(o.metadata.resourceVersion) });
const rvs = (c: LocalObjectCache) => [...c.values('Revision')].map((o) => `${o.metadata.name}@${o.metadata.resourceVersion}`).sort();

describe('LocalObjectCache', () => {
  it('is not listed until a full list was merged', () => {
    const c = new LocalObjectCache();
    c.event('Revision', ev('added', obj('a', 1)));
    expect(c.listed('Revision')).toBe(false);
    c.replace('Revision', [obj('a', 1)], 1);
    expect(c.listed('Revision')).toBe(true);
    expect(c.listed('Function')).toBe(false);
  });

  it('keeps the newest copy whatever order events, lists and own writes arrive in', () => {
    const c = new LocalObjectCache();
    c.event('Revision', ev('modified', obj('a', 5)));
    c.event('Revision', ev('modified', obj('a', 3))); // late, older
    c.wrote('Revision', obj('a', 4)); // own write's answer, older than an event already seen
    c.replace('Revision', [obj('a', 2)], 2); // a list taken before both
    expect(rvs(c)).toEqual(['a@5']);
    c.wrote('Revision', obj('a', 6));
    expect(rvs(c)).toEqual(['a@6']);
  });

  it('does not let a list taken before a deletion bring the object back', () => {
    const c = new LocalObjectCache();
    c.replace('Revision', [obj('a', 1), obj('b', 1)], 1);
    c.event('Revision', ev('deleted', obj('a', 7)));
    c.replace('Revision', [obj('a', 1), obj('b', 1)], 6); // listed at 6, before the deletion at 7
    expect(rvs(c)).toEqual(['b@1']);
    // Re-created under the same name after the deletion: kept.
    c.event('Revision', ev('added', obj('a', 9)));
    expect(rvs(c)).toEqual(['a@9', 'b@1']);
  });

  it('drops what a newer list no longer has, but not what an event newer than the list brought', () => {
    const c = new LocalObjectCache();
    c.replace('Revision', [obj('a', 1), obj('b', 2)], 2);
    c.event('Revision', ev('added', obj('c', 12)));
    c.replace('Revision', [obj('b', 2)], 10); // a was deleted by rv 10 (its event missed); c is newer than the list
    expect(rvs(c)).toEqual(['b@2', 'c@12']);
  });

  it('forgets a tombstone once a list reflects the deletion', () => {
    const c = new LocalObjectCache();
    c.event('Revision', ev('deleted', obj('a', 7)));
    c.replace('Revision', [], 8);
    // An older copy (a write's answer that raced the deletion) is no longer blocked by the tombstone,
    // which is why the tombstone must survive until then: before the list it was refused.
    const d = new LocalObjectCache();
    d.event('Revision', ev('deleted', obj('a', 7)));
    d.wrote('Revision', obj('a', 6));
    expect(rvs(d)).toEqual([]);
    c.wrote('Revision', obj('a', 6));
    expect(rvs(c)).toEqual(['a@6']);
  });

  it('removes an object this process deleted', () => {
    const c = new LocalObjectCache();
    c.replace('Revision', [obj('a', 1)], 1);
    c.removed('Revision', 'default', 'a');
    expect(c.get('Revision', 'default', 'a')).toBeUndefined();
  });

  it('lists by namespace and every given label, and hands out copies', () => {
    const c = new LocalObjectCache();
    c.replace('Revision', [obj('a', 1, { fn: 'x', tier: 'web' }), obj('b', 2, { fn: 'x' }), obj('c', 3, { fn: 'y' }), obj('d', 4, { fn: 'x' }, 'other')], 4);
    expect(c.list('Revision', 'default', { fn: 'x' }).map((o) => o.metadata.name).sort()).toEqual(['a', 'b']);
    expect(c.list('Revision', 'default', { fn: 'x', tier: 'web' }).map((o) => o.metadata.name)).toEqual(['a']);
    expect(c.list('Revision', 'default').map((o) => o.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    expect(c.list('Revision', 'other', { fn: 'y' })).toEqual([]);
    const got = c.get<Resource>('Revision', 'default', 'a')!;
    got.metadata.labels!.fn = 'changed';
    c.list<Resource>('Revision', 'default', { fn: 'x' })[0]!.metadata.name = 'changed';
    expect(c.get<Resource>('Revision', 'default', 'a')!.metadata.labels!.fn).toBe('x');
    expect(c.list('Revision', 'default', { fn: 'x' }).map((o) => o.metadata.name).sort()).toEqual(['a', 'b']);
  });
});
