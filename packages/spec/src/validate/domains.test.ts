import { describe, expect, it } from 'vitest';
import { validate } from './index.ts';

const fn = (domains: unknown) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name: 'shop', namespace: 'default' },
  spec: { template: { source: { inline: 'export default () => 1' } }, domains },
});
const reasons = (domains: unknown) => validate(fn(domains)).map((e) => `${e.path} ${e.reason}`);

describe('spec.domains validation', () => {
  it('accepts fully qualified lower-case hosts with and without tls', () => {
    expect(reasons([{ host: 'shop.example.com' }, { host: 'a.b', tls: { secretName: 'shop-tls' }, redirectToHTTPS: true }, { host: 'xn--bcher-kva.example' }, { host: '1a.example-2.io' }])).toEqual([]);
  });

  it.each([
    ['Shop.example.com'],
    ['localhost'],
    ['*.example.com'],
    ['shop.example.com.'],
    ['shop.example.com:443'],
    ['10.0.0.1'],
    ['-shop.example.com'],
    ['shop-.example.com'],
    ['shop..example.com'],
    ['shop.example.1com'],
    ['shop_x.example.com'],
    [`${'a'.repeat(64)}.example.com`],
    [`${'a.'.repeat(126)}com`],
    [''],
  ])('refuses host %j with domain_host', (host) => {
    expect(reasons([{ host }])).toEqual(['spec.domains[0].host domain_host']);
  });

  it('refuses a repeated host, naming the first', () => {
    const errors = validate(fn([{ host: 'a.example.com' }, { host: 'b.example.com' }, { host: 'a.example.com' }]));
    expect(errors.map((e) => `${e.path} ${e.reason}`)).toEqual(['spec.domains[2].host domain_duplicate']);
    expect(errors[0]!.message).toContain('spec.domains[0]');
  });

  it('refuses redirectToHTTPS without tls', () => {
    expect(reasons([{ host: 'a.example.com', redirectToHTTPS: true }])).toEqual(['spec.domains[0].redirectToHTTPS domain_redirect_needs_tls']);
    expect(reasons([{ host: 'a.example.com', redirectToHTTPS: false }])).toEqual([]);
  });

  it('refuses a Secret name that is not a DNS-1123 subdomain', () => {
    expect(reasons([{ host: 'a.example.com', tls: { secretName: 'Shop_TLS' } }])).toEqual(['spec.domains[0].tls.secretName domain_tls_secret']);
  });

  it('refuses more than 16 hosts', () => {
    const many = Array.from({ length: 17 }, (_, i) => ({ host: `h${i}.example.com` }));
    expect(reasons(many)).toEqual(['spec.domains max']);
  });
});
