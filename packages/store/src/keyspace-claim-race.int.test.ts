/**
 * The local store judges "a keyspace belongs to one Function" inside the write's transaction,
 * under its global write lock: Functions declaring one keyspace at the same moment cannot all
 * see it free. (The Kubernetes store cannot make this atomic; its reconciler re-checks.)
 */
import { connect, createTestDatabase } from '@orrery/db';
import { describe, expect, it } from 'vitest';
import { createLocalStore } from './local-store.ts';
import { StoreError } from './types.ts';

const stateful = (name: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'race' },
  spec: { template: { source: { inline: 'x' } }, state: { keyspace: 'contested' } },
});

describe.each([
  ['pglite (embedded)', async () => ({ url: '', drop: async () => {} })],
  ['postgres', async () => {
    const tdb = await createTestDatabase('orrery_store_ks_race');
    return { url: tdb.url, drop: () => tdb.drop() };
  }],
])('concurrent declarations of one keyspace on %s', (_name, database) => {
  it('exactly one of 8 concurrent applies wins; the others are refused naming it', { timeout: 60_000 }, async () => {
    const db = await database();
    const conn = connect({ url: db.url, max: 8 });
    const store = await createLocalStore(conn);
    try {
      const names = Array.from({ length: 8 }, (_, i) => `claimant-${i}`);
      const results = await Promise.allSettled(names.map((n) => store.apply(stateful(n))));
      const won = results.flatMap((r, i) => (r.status === 'fulfilled' ? [names[i]!] : []));
      expect(won).toHaveLength(1);
      for (const r of results) {
        if (r.status === 'rejected') {
          expect(r.reason).toBeInstanceOf(StoreError);
          expect((r.reason as StoreError).details?.map((d) => d.reason)).toEqual(['state_keyspace_taken']);
          expect((r.reason as StoreError).message).toContain(`belongs to Function race/${won[0]}`);
        }
      }
      expect((await store.list('Function', { namespace: 'race' })).items.map((f) => f.metadata.name)).toEqual(won);
    } finally {
      await store.close();
      await conn.close();
      await db.drop();
    }
  });
});
