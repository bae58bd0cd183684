import { beforeAll, describe, expect, it } from 'vitest';
import { type PemPair, testCa, testLeaf } from './testing/test-certificates.ts';
import type { TlsSecret } from './domain-backend.ts';
import { planDomains, secretsToRead } from './domain-plan.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T00:00:00Z');
let shop: PemPair;

beforeAll(async () => {
  const ca = await testCa({ notBefore: NOW.getTime() - DAY, notAfter: NOW.getTime() + 365 * DAY }, 'ca');
  shop = await testLeaf(ca, ['shop.example.com'], { notBefore: NOW.getTime() - DAY, notAfter: NOW.getTime() + 30 * DAY });
});

const fn = (namespace: string, name: string, domains: unknown[], creationTimestamp = '2026-01-01T00:00:00Z') => ({
  metadata: { namespace, name, creationTimestamp },
  spec: { domains },
});

describe('domain plan', () => {
  it('serves a held host with a good certificate: Ready, certificate facts, and the routers get chain + key', () => {
    const f = fn('a', 'shop', [{ host: 'shop.example.com', tls: { secretName: 'shop-tls' } }]);
    expect(secretsToRead([f])).toEqual([{ namespace: 'a', name: 'shop-tls' }]);
    const plan = planDomains([f], new Map([['a/shop-tls', { crt: shop.certPem, key: shop.keyPem }]]), NOW);
    const [s] = plan.statuses.get('a/shop')!;
    expect([s!.ready, s!.reason, s!.certificate?.dnsNames]).toEqual([true, 'Ready', ['shop.example.com']]);
    expect(plan.bundle.get('shop.example.com')).toBe(`${shop.certPem}\n${shop.keyPem}`.replace(/\n\n/g, '\n'));
  });

  it('a host without tls is Ready over plain HTTP and puts nothing in the bundle', () => {
    const plan = planDomains([fn('a', 'f', [{ host: 'plain.example.com' }])], new Map(), NOW);
    expect(plan.statuses.get('a/f')).toEqual([{ host: 'plain.example.com', ready: true, reason: 'Ready', message: 'served over plain HTTP (no tls)' }]);
    expect(plan.bundle.size).toBe(0);
  });

  it('the younger Function gets DomainClaimed naming the holder; its Secret is not even read', () => {
    const old = fn('team-a', 'shop', [{ host: 'shop.example.com', tls: { secretName: 'shop-tls' } }], '2026-01-01T00:00:00Z');
    const thief = fn('team-b', 'thief', [{ host: 'shop.example.com', tls: { secretName: 'stolen' } }], '2026-02-01T00:00:00Z');
    expect(secretsToRead([thief, old])).toEqual([{ namespace: 'team-a', name: 'shop-tls' }]);
    const plan = planDomains([thief, old], new Map([['team-a/shop-tls', { crt: shop.certPem, key: shop.keyPem }]]), NOW);
    const [s] = plan.statuses.get('team-b/thief')!;
    expect([s!.ready, s!.reason, s!.claimedBy]).toEqual([false, 'DomainClaimed', 'team-a/shop']);
    expect(s!.message).toContain('team-a/shop');
    expect(plan.statuses.get('team-a/shop')![0]!.ready).toBe(true);
  });

  it.each<[string, TlsSecret | undefined, string, string | undefined]>([
    ['no Secret', undefined, 'CertificateMissing', undefined],
    ['no tls.key', { crt: 'x' }, 'CertificateMissing', undefined],
    ['no tls.crt', { key: 'x' }, 'CertificateMissing', undefined],
    ['garbage', { crt: 'x', key: 'y' }, 'CertificateInvalid', 'unparsable'],
  ])('%s → %s', (_what, secret, reason, problem) => {
    const f = fn('a', 'shop', [{ host: 'shop.example.com', tls: { secretName: 's' } }]);
    const plan = planDomains([f], new Map([['a/s', secret]]), NOW);
    const [s] = plan.statuses.get('a/shop')!;
    expect([s!.ready, s!.reason, s!.problem]).toEqual([false, reason, problem]);
    expect(plan.bundle.size).toBe(0);
  });

  it('an expired certificate leaves the bundle and says when it expired; a certificate for another host is not served', () => {
    const later = new Date(NOW.getTime() + 60 * DAY);
    const f = fn('a', 'shop', [{ host: 'shop.example.com', tls: { secretName: 's' } }, { host: 'other.example.com', tls: { secretName: 's' } }]);
    const plan = planDomains([f], new Map([['a/s', { crt: shop.certPem, key: shop.keyPem }]]), later);
    const [a] = plan.statuses.get('a/shop')!;
    expect([a!.reason, a!.problem]).toEqual(['CertificateInvalid', 'expired']);
    expect(a!.message).toMatch(/^Secret a\/s: the certificate expired at /);
    expect(plan.bundle.size).toBe(0);
    const now = planDomains([f], new Map([['a/s', { crt: shop.certPem, key: shop.keyPem }]]), NOW);
    expect(now.statuses.get('a/shop')!.map((s) => s.problem ?? s.reason)).toEqual(['Ready', 'hostNotCovered']);
    expect([...now.bundle.keys()]).toEqual(['shop.example.com']);
  });
});
