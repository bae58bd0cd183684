import { describe, expect, it } from 'vitest';
import { applyLookupFor, keyspaceHoldersAmong } from './apply-lookup.ts';

const fn = (name: string, namespace: string | undefined, state: Record<string, unknown> | undefined, creationTimestamp?: string) => ({
  kind: 'Function',
  metadata: { name, ...(namespace ? { namespace } : {}), ...(creationTimestamp ? { creationTimestamp } : {}) },
  spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) },
});

describe('keyspaceHoldersAmong', () => {
  const functions = [
    fn('a', 'shop', { keyspace: 'cart' }, '2026-01-01T00:00:00Z'),
    fn('b', 'shop', {}), // keyspace = its name
    fn('cart', 'shop', {}), // keyspace "cart" by its name
    fn('c', 'other', { keyspace: 'cart' }),
    fn('d', 'shop', undefined), // no state: holds nothing
    fn('e', undefined, { keyspace: 'cart' }), // namespace default
    { kind: 'Environment', metadata: { name: 'x', namespace: 'shop' }, spec: { state: { keyspace: 'cart' } } },
  ];
  it.each([
    ['shop', 'cart', [{ name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' }, { name: 'cart' }]],
    ['shop', 'b', [{ name: 'b' }]],
    ['other', 'cart', [{ name: 'c' }]],
    ['default', 'cart', [{ name: 'e' }]],
    ['shop', 'd', []],
  ] as const)('%s/%s', (namespace, keyspace, want) => {
    expect(keyspaceHoldersAmong(functions, namespace, keyspace)).toEqual(want);
  });
});

describe('applyLookupFor', () => {
  it('reads the Functions and the stored object only for a Function that declares a keyspace', async () => {
    const reads = { environment: 0, functions: 0, previous: 0 };
    const store = {
      getEnvironment: async () => void reads.environment++,
      listFunctions: async () => (reads.functions++, [fn('owner', 'shop', { keyspace: 'cart' })]),
      getPrevious: async () => (reads.previous++, undefined),
    };
    expect(await applyLookupFor({ kind: 'Environment', metadata: { name: 'x' } }, store)).toBeUndefined();
    await applyLookupFor(fn('plain', 'shop', undefined), store);
    expect(reads).toEqual({ environment: 1, functions: 0, previous: 0 });
    const lookup = (await applyLookupFor(fn('second', 'shop', { keyspace: 'cart' }), store))!;
    expect(reads).toEqual({ environment: 2, functions: 1, previous: 1 });
    expect(lookup.keyspaceHolders!('shop', 'cart')).toEqual([{ name: 'owner' }]);
    // Asked about another keyspace than the one judged: nothing was read for it.
    expect(lookup.keyspaceHolders!('shop', 'other')).toEqual([]);
  });
});
