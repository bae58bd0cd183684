import { FunctionSchema, type Resource } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { parseKeyspaces } from './keyspaces.ts';
import { keyspacesFromFunctions, mergeKeyspaces } from './store-keyspaces.ts';

const fn = (name: string, state?: Record<string, unknown>, namespace = 'default'): Resource =>
  FunctionSchema.parse({ apiVersion: 'orrery.dev/v1alpha1', kind: 'Function', metadata: { name, namespace }, spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) } });

describe('keyspace declarations from Functions', () => {
  it('declares only stateful functions, with the effective keyspace and quotas', () => {
    const t = keyspacesFromFunctions([fn('plain'), fn('counter', {}), fn('cart', { keyspace: 'carts', maxKeys: 5, maxValueBytes: 64, defaultTTL: '30s' }, 'shop')]);
    expect([...t.keys()].sort()).toEqual(['default/counter', 'shop/carts']);
    expect(t.get('default/counter')).toEqual({ namespace: 'default', keyspace: 'counter', maxKeys: 10_000, maxValueBytes: 256 * 1024, defaultTtlMs: 0, defaultTTL: null });
    expect(t.get('shop/carts')).toEqual({ namespace: 'shop', keyspace: 'carts', maxKeys: 5, maxValueBytes: 64, defaultTtlMs: 30_000, defaultTTL: '30s' });
    expect(keyspacesFromFunctions([fn('orders', { idempotencyRetention: '10m' })]).get('default/orders')!.idempotencyRetentionMs).toBe(600_000);
  });

  it('a keyspace shared by two functions takes the quotas of the first by name, whatever the order', () => {
    const a = fn('a-writer', { keyspace: 'shared', maxKeys: 1 });
    const b = fn('b-reader', { keyspace: 'shared', maxKeys: 2 });
    expect(keyspacesFromFunctions([b, a]).get('default/shared')!.maxKeys).toBe(1);
    expect(keyspacesFromFunctions([a, b]).get('default/shared')!.maxKeys).toBe(1);
  });

  it('the keyspaces file overrides the store for the same keyspace and adds its own', () => {
    const store = keyspacesFromFunctions([fn('counter', { maxKeys: 3 }), fn('other', {})]);
    const file = parseKeyspaces('- {namespace: default, keyspace: counter, maxKeys: 9}\n- {namespace: ops, keyspace: extra}\n');
    const merged = mergeKeyspaces(file, store);
    expect(merged.get('default/counter')!.maxKeys).toBe(9);
    expect([...merged.keys()].sort()).toEqual(['default/counter', 'default/other', 'ops/extra']);
    expect(mergeKeyspaces(new Map(), store)).toBe(store);
  });
});
