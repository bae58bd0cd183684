import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type KeyspaceClaim,
  compareClaims,
  declaredKeyspace,
  declaresNewKeyspace,
  keyspaceHeldBy,
  keyspaceOwner,
  rivalClaims,
} from './keyspace-owner.ts';

const fn = (name: string, state?: Record<string, unknown>, meta: Record<string, unknown> = {}) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace: 'shop', ...meta },
  spec: { template: { source: { inline: 'x' } }, ...(state ? { state } : {}) },
});
const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s)).toISOString();
const claim = (name: string, sec?: number): KeyspaceClaim => ({ name, ...(sec === undefined ? {} : { creationTimestamp: at(sec) }) });

describe('compareClaims: the ownership order', () => {
  it.each([
    ['created earlier first', claim('b', 1), claim('a', 2), -1],
    ['created later after', claim('a', 2), claim('b', 1), 1],
    ['same second: by name', claim('a', 5), claim('b', 5), -1],
    ['same second, name after', claim('b', 5), claim('a', 5), 1],
    ['not created yet after every created one', claim('a'), claim('z', 59), 1],
    ['created before a manifest being admitted', claim('z', 59), claim('a'), -1],
    ['two manifests: by name', claim('a'), claim('b'), -1],
    ['itself', claim('a', 3), claim('a', 3), 0],
    ['an unreadable timestamp counts as not created', { name: 'a', creationTimestamp: 'yesterday' }, claim('b', 1), 1],
  ] as const)('%s', (_what, a, b, want) => {
    expect(Math.sign(compareClaims(a, b))).toBe(want);
  });

  const arbClaim = fc.record({
    name: fc.constantFrom('a', 'b', 'c', 'cart', 'counter'),
    sec: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  }).map(({ name, sec }) => claim(name, sec));

  it('is a total order: antisymmetric and transitive, 0 only for the same claim', () => {
    fc.assert(
      fc.property(arbClaim, arbClaim, arbClaim, (a, b, c) => {
        expect(Math.sign(compareClaims(a, b))).toBe(-Math.sign(compareClaims(b, a)) || 0);
        if (compareClaims(a, b) === 0) expect(a).toEqual(b);
        if (compareClaims(a, b) <= 0 && compareClaims(b, c) <= 0) expect(compareClaims(a, c)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 2000 },
    );
  });

  it('keyspaceOwner picks the first in that order, whatever the order of the list', () => {
    fc.assert(
      fc.property(fc.uniqueArray(arbClaim, { selector: (c) => c.name, minLength: 1, maxLength: 5 }), (claims) => {
        const owner = keyspaceOwner(claims)!;
        for (const c of claims) expect(compareClaims(owner, c)).toBeLessThanOrEqual(0);
        expect(keyspaceOwner([...claims].reverse())).toEqual(owner);
      }),
    );
    expect(keyspaceOwner([])).toBeUndefined();
  });
});

describe('declaredKeyspace', () => {
  it.each([
    ['explicit keyspace', fn('cart', { keyspace: 'carts' }), { namespace: 'shop', keyspace: 'carts' }],
    ['default: the function name', fn('cart', {}), { namespace: 'shop', keyspace: 'cart' }],
    ['an empty keyspace is the default', fn('cart', { keyspace: '' }), { namespace: 'shop', keyspace: 'cart' }],
    ['namespace defaults to "default"', fn('cart', {}, { namespace: undefined }), { namespace: 'default', keyspace: 'cart' }],
    ['no spec.state: none', fn('cart'), undefined],
    ['not a Function', { ...fn('cart', {}), kind: 'Revision' }, undefined],
    ['no name', { kind: 'Function', metadata: {}, spec: { state: {} } }, undefined],
    ['not an object', 'Function', undefined],
    ['state of the wrong type', { kind: 'Function', metadata: { name: 'a' }, spec: { state: 'yes' } }, undefined],
  ])('%s', (_what, obj, want) => {
    expect(declaredKeyspace(obj)).toEqual(want);
  });
});

describe('rivalClaims and keyspaceHeldBy', () => {
  const owner = fn('cart', { keyspace: 'carts' }, { creationTimestamp: at(1) });
  const late = fn('checkout', { keyspace: 'carts' }, { creationTimestamp: at(9) });

  it('finds the other Functions of the namespace that declare the same effective keyspace', () => {
    const others = [
      owner,
      late,
      fn('carts', {}, { creationTimestamp: at(5) }), // default keyspace "carts": the same one
      fn('elsewhere', { keyspace: 'carts' }, { namespace: 'other', creationTimestamp: at(0) }),
      fn('other-ks', { keyspace: 'sessions' }, { creationTimestamp: at(0) }),
      fn('stateless', undefined, { creationTimestamp: at(0) }),
    ];
    expect(rivalClaims(late, others).map((c) => c.name)).toEqual(['cart', 'carts']);
    expect(rivalClaims(fn('stateless'), others)).toEqual([]);
  });

  it('the first created owns it; the later one is held by it; equal seconds go by name', () => {
    expect(keyspaceHeldBy(owner, [owner, late])).toBeUndefined();
    expect(keyspaceHeldBy(late, [owner, late])).toBe('cart');
    const sameSecond = fn('basket', { keyspace: 'carts' }, { creationTimestamp: at(1) });
    expect(keyspaceHeldBy(owner, [owner, sameSecond])).toBe('basket');
    expect(keyspaceHeldBy(sameSecond, [owner, sameSecond])).toBeUndefined();
  });

  it('a manifest not yet created never owns a keyspace a created Function declares', () => {
    expect(keyspaceHeldBy(fn('aaa', { keyspace: 'carts' }), [late])).toBe('checkout');
    expect(keyspaceHeldBy(fn('aaa', { keyspace: 'free' }), [late])).toBeUndefined();
  });
});

describe('declaresNewKeyspace (what admission judges)', () => {
  it.each([
    ['a create with state', undefined, fn('cart', {}), true],
    ['a create without state', undefined, fn('cart'), false],
    ['state added', fn('cart'), fn('cart', {}), true],
    ['another keyspace', fn('cart', { keyspace: 'a' }), fn('cart', { keyspace: 'b' }), true],
    ['the default made explicit', fn('cart', {}), fn('cart', { keyspace: 'cart' }), false],
    ['the same keyspace, other quotas', fn('cart', { keyspace: 'a' }), fn('cart', { keyspace: 'a', maxKeys: 5 }), false],
    ['state removed', fn('cart', {}), fn('cart'), false],
  ])('%s → %s', (_what, prev, next, want) => {
    expect(declaresNewKeyspace(prev, next)).toBe(want);
  });
});
