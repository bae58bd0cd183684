import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { describe, expect, it } from 'vitest';
import { matchDomain, requestHostName } from './domain-routes.ts';
import { compileRoutes } from './route-table.ts';
import { routingFingerprint } from './store-route-source.ts';

const fn = (namespace: string, name: string, domains: unknown[], creationTimestamp?: string): OrreryFunction =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name, namespace, ...(creationTimestamp ? { creationTimestamp } : {}) },
    spec: { template: { source: { inline: 'x' } }, domains },
  });

describe('custom domain routes', () => {
  it('maps each host to the Function holding it; the older Function keeps a contested host', () => {
    const shop = fn('team-a', 'shop', [{ host: 'shop.example.com', tls: { secretName: 's' }, redirectToHTTPS: true }, { host: 'www.example.com' }], '2026-01-01T00:00:00Z');
    const late = fn('team-b', 'late', [{ host: 'shop.example.com' }, { host: 'late.example.com' }], '2026-03-01T00:00:00Z');
    const t = compileRoutes([late, shop], []);
    expect([...t.hosts.keys()].sort()).toEqual(['late.example.com', 'shop.example.com', 'www.example.com']);
    const d = t.hosts.get('shop.example.com')!;
    expect([d.fn.key, d.redirectToHTTPS]).toEqual(['team-a/shop', true]);
    expect(t.hosts.get('late.example.com')!.fn.key).toBe('team-b/late');
    expect(t.hosts.get('www.example.com')!.redirectToHTTPS).toBe(false);
  });

  it('has no hosts when no Function lists a domain', () => {
    expect(compileRoutes([fn('a', 'b', [])], []).hosts.size).toBe(0);
  });

  it.each([
    ['shop.example.com', 'shop.example.com'],
    ['SHOP.Example.COM', 'shop.example.com'],
    ['shop.example.com:8443', 'shop.example.com'],
    ['shop.example.com.', 'shop.example.com'],
    ['shop.example.com.:80', 'shop.example.com'],
    ['[::1]:8080', undefined],
    ['', undefined],
    [undefined, undefined],
    [':80', undefined],
  ])('reads Host %j as %j', (header, host) => {
    expect(requestHostName(header)).toBe(host);
  });

  it('matches the Host header exactly (any case, any port), never a suffix or a host under the router\'s own --domain', () => {
    const t = compileRoutes([fn('a', 'shop', [{ host: 'shop.example.com' }, { host: 'shop.fn.example.net' }, { host: 'fn.example.net' }])], []);
    expect(matchDomain(t.hosts, 'Shop.Example.com:8080', undefined)?.fn.key).toBe('a/shop');
    expect(matchDomain(t.hosts, 'x.shop.example.com', undefined)).toBeUndefined();
    expect(matchDomain(t.hosts, 'example.com', undefined)).toBeUndefined();
    expect(matchDomain(t.hosts, 'shop.fn.example.net', undefined)?.fn.key).toBe('a/shop');
    expect(matchDomain(t.hosts, 'shop.fn.example.net', '.fn.example.net')).toBeUndefined();
    expect(matchDomain(t.hosts, 'fn.example.net', '.fn.example.net')).toBeUndefined();
    expect(matchDomain(t.hosts, 'shop.example.com', '.fn.example.net')?.fn.key).toBe('a/shop');
  });

  it('a store change that moves a contested host (the holder is being deleted) changes the routing fingerprint', () => {
    const old = fn('a', 'old', [{ host: 'x.example.com' }], '2026-01-01T00:00:00Z');
    const base = routingFingerprint([old], []);
    const deleting = { ...old, metadata: { ...old.metadata, deletionTimestamp: '2026-02-01T00:00:00Z' } };
    expect(routingFingerprint([deleting], [])).not.toBe(base);
    expect(compileRoutes([deleting, fn('b', 'next', [{ host: 'x.example.com' }], '2026-01-05T00:00:00Z')], []).hosts.get('x.example.com')!.fn.key).toBe('b/next');
  });
});
