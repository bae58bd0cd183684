import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect } from '@orrery/db';
import type { ResourceKind } from '@orrery/spec';
import { createLocalStore, type ResourceStore } from '@orrery/store';
import { until } from '../testing/spawn-server.ts';
import { createExecutorView } from './executor-view.ts';

// The executor view on the real embedded store: mirror hits, store misses believed for a while,
// and an object created inside that while found through the mirror at once.
const conn = connect({ url: '' });
let store: ResourceStore;
const gets: string[] = [];

beforeAll(async () => {
  store = await createLocalStore(conn, { pollMs: 50 });
}, 60_000);
afterAll(async () => {
  await store.close();
  await conn.close();
});

const counting = (s: ResourceStore): ResourceStore =>
  new Proxy(s, {
    get(target, prop, receiver) {
      if (prop === 'get') return (kind: ResourceKind, ns: string, name: string) => (gets.push(`${kind}/${ns}/${name}`), target.get(kind, ns, name));
      return Reflect.get(target, prop, receiver) as unknown;
    },
  });

const environment = (name: string, poolSize: number) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Environment',
  metadata: { name, namespace: 'default' },
  spec: { image: 'orrery/runtime-node:latest', poolSize },
});

describe('executor view', () => {
  it('serves a missing object from one store read until the miss expires, and a created one from the mirror', async () => {
    let t = 1_000;
    const view = createExecutorView(counting(store), { now: () => t, absentTtlMs: 1000 });
    try {
      gets.length = 0;
      expect(await view.environment('default', 'default')).toBeUndefined();
      expect(await view.environment('default', 'default')).toBeUndefined();
      expect(await view.environment('default', 'default')).toBeUndefined();
      expect(gets).toEqual(['Environment/default/default']);

      t += 1001; // the miss is no longer believed: one more read
      expect(await view.environment('default', 'default')).toBeUndefined();
      expect(gets).toHaveLength(2);

      // Created inside the window of a fresh miss: the mirror's watch shows it without a store read.
      await store.apply(environment('default', 5));
      const seen = await until(() => view.environment('default', 'default'), (e) => e !== undefined, 5_000, 'the mirror shows the created Environment');
      expect(seen?.spec.poolSize).toBe(5);
      expect(gets).toHaveLength(2);

      // Deleted: the mirror drops it, the next call reads the store once and believes the miss.
      await store.delete('Environment', 'default', 'default');
      t += 1001;
      await until(() => view.environment('default', 'default'), (e) => e === undefined, 5_000, 'the mirror drops the deleted Environment');
      const reads = gets.length;
      expect(await view.environment('default', 'default')).toBeUndefined();
      expect(gets).toHaveLength(reads);
    } finally {
      view.stop();
    }
  });

  it('reads the store for a different name even while another miss is believed', async () => {
    const view = createExecutorView(counting(store), { now: () => 5_000 });
    try {
      gets.length = 0;
      await view.fn('default', 'nope-a');
      await view.fn('default', 'nope-b');
      await view.revision('default', 'nope-a');
      expect(gets).toEqual(['Function/default/nope-a', 'Function/default/nope-b', 'Revision/default/nope-a']);
    } finally {
      view.stop();
    }
  });
});
