import { describe, expect, it } from 'vitest';
import { compareDomainClaims, domainClaimsOf, domainHolders } from './domain-claims.ts';

const fn = (namespace: string, name: string, hosts: string[], creationTimestamp?: string, extra: Record<string, unknown> = {}) => ({
  kind: 'Function',
  metadata: { namespace, name, ...(creationTimestamp ? { creationTimestamp } : {}), ...extra },
  spec: { domains: hosts.map((host) => ({ host })) },
});

describe('domain claim rule', () => {
  it('the oldest Function holds a host, whatever the list order', () => {
    const a = fn('team-a', 'shop', ['shop.example.com'], '2026-01-02T00:00:00Z');
    const b = fn('team-b', 'thief', ['shop.example.com'], '2026-01-01T00:00:00Z');
    expect(domainHolders([a, b]).get('shop.example.com')).toEqual({ namespace: 'team-b', name: 'thief' });
    expect(domainHolders([b, a]).get('shop.example.com')).toEqual({ namespace: 'team-b', name: 'thief' });
  });

  it('equal creation times (whole seconds) go by namespace, then name', () => {
    const t = '2026-01-01T00:00:00Z';
    expect(domainHolders([fn('b', 'a', ['x.example.com'], t), fn('a', 'z', ['x.example.com'], t)]).get('x.example.com')).toEqual({ namespace: 'a', name: 'z' });
    expect(domainHolders([fn('a', 'y', ['x.example.com'], t), fn('a', 'b', ['x.example.com'], t)]).get('x.example.com')).toEqual({ namespace: 'a', name: 'b' });
  });

  it('a Function not created yet comes after every created one; among them, by namespace and name', () => {
    expect(domainHolders([fn('a', 'new', ['x.example.com']), fn('z', 'old', ['x.example.com'], '2030-01-01T00:00:00Z')]).get('x.example.com')).toEqual({ namespace: 'z', name: 'old' });
    expect(domainHolders([fn('b', 'n', ['x.example.com']), fn('a', 'n', ['x.example.com'])]).get('x.example.com')).toEqual({ namespace: 'a', name: 'n' });
    expect(domainHolders([fn('b', 'n', ['x.example.com'], 'garbage'), fn('a', 'n', ['x.example.com'], '2030-01-01T00:00:00Z')]).get('x.example.com')).toEqual({ namespace: 'a', name: 'n' });
  });

  it('a Function being deleted claims nothing: the next one takes over', () => {
    const old = fn('a', 'old', ['x.example.com'], '2026-01-01T00:00:00Z', { deletionTimestamp: '2026-02-01T00:00:00Z' });
    expect(domainHolders([old, fn('b', 'next', ['x.example.com'], '2026-01-05T00:00:00Z')]).get('x.example.com')).toEqual({ namespace: 'b', name: 'next' });
  });

  it('hosts are claimed one by one: one Function may hold one of its hosts and lose another', () => {
    const holders = domainHolders([fn('a', 'f', ['one.example.com', 'two.example.com'], '2026-01-02T00:00:00Z'), fn('b', 'g', ['two.example.com'], '2026-01-01T00:00:00Z')]);
    expect(holders.get('one.example.com')).toEqual({ namespace: 'a', name: 'f' });
    expect(holders.get('two.example.com')).toEqual({ namespace: 'b', name: 'g' });
  });

  it('reads raw objects leniently: no domains, garbage and repeats claim nothing extra', () => {
    expect(domainClaimsOf(null)).toEqual([]);
    expect(domainClaimsOf({ metadata: { name: 'x' }, spec: {} })).toEqual([]);
    expect(domainClaimsOf({ metadata: { name: 'x' }, spec: { domains: [{ host: 'a.b.c' }, { host: 'a.b.c' }, 7, { host: '' }] } })).toEqual([{ host: 'a.b.c', namespace: 'default', name: 'x' }]);
  });

  it('is a total order (antisymmetric, transitive on a sample)', () => {
    const claims = [
      { host: 'h', namespace: 'a', name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' },
      { host: 'h', namespace: 'a', name: 'b', creationTimestamp: '2026-01-01T00:00:00Z' },
      { host: 'h', namespace: 'b', name: 'a', creationTimestamp: '2026-01-01T00:00:00Z' },
      { host: 'h', namespace: 'a', name: 'a', creationTimestamp: '2026-01-01T00:00:01Z' },
      { host: 'h', namespace: 'a', name: 'c' },
    ];
    for (const x of claims) for (const y of claims) expect(Math.sign(compareDomainClaims(x, y)) + Math.sign(compareDomainClaims(y, x))).toBe(0);
    const sorted = [...claims].sort(compareDomainClaims);
    expect(sorted.map((c) => `${c.namespace}/${c.name}@${c.creationTimestamp ?? '-'}`)).toEqual([
      'a/a@2026-01-01T00:00:00Z',
      'a/b@2026-01-01T00:00:00Z',
      'b/a@2026-01-01T00:00:00Z',
      'a/a@2026-01-01T00:00:01Z',
      'a/c@-',
    ]);
  });
});
