import { describe, expect, it } from 'vitest';
import { LocalEventLog } from './local-event-log.ts';

const t = (name: string, kind = 'Revision') => ({ apiVersion: 'orrery.dev/v1alpha1', kind, namespace: 'ns', name });
const entry = (name: string, count: number, at: number) => {
  const ts = new Date(at).toISOString();
  return { name, count, firstTimestamp: ts, lastTimestamp: ts, written: true };
};
const ev = { reason: 'Scaled' as const, message: 'm', type: 'Normal' as const };

describe('LocalEventLog', () => {
  it('keeps a bounded ring per object, newest last', async () => {
    const log = new LocalEventLog({ perObject: 3 });
    for (let i = 0; i < 5; i++) await log.write(t('r'), { ...ev, message: `m${i}` }, entry(`e${i}`, 1, i));
    expect(log.list({ namespace: 'ns', kind: 'Revision', name: 'r' }).map((e) => e.message)).toEqual(['m2', 'm3', 'm4']);
  });

  it('updates the one Event of a series in place', async () => {
    const log = new LocalEventLog();
    await log.write(t('r'), ev, entry('s', 1, 0));
    expect(await log.write(t('r'), ev, { ...entry('s', 2, 10), firstTimestamp: new Date(0).toISOString() })).toBe(2);
    const [only, ...rest] = log.list({ namespace: 'ns' });
    expect(rest).toEqual([]);
    expect(only).toMatchObject({ count: 2, firstTimestamp: new Date(0).toISOString(), lastTimestamp: new Date(10).toISOString() });
  });

  it('forgets the least recently written object beyond its bound, and filters by namespace, kind and name', async () => {
    const log = new LocalEventLog({ objects: 2 });
    await log.write(t('a'), ev, entry('1', 1, 1));
    await log.write(t('b', 'Function'), ev, entry('2', 1, 2));
    await log.write(t('c'), ev, entry('3', 1, 3));
    expect(log.list({ namespace: 'ns' }).map((e) => e.involvedObject.name)).toEqual(['b', 'c']);
    expect(log.list({ namespace: 'ns', kind: 'Function' }).map((e) => e.involvedObject.name)).toEqual(['b']);
    expect(log.list({ namespace: 'other' })).toEqual([]);
  });
});
