import { beforeAll, describe, expect, it } from 'vitest';
import { checkCertificate } from './certificate-check.ts';
import { type PemPair, testCa, testLeaf } from './testing/test-certificates.ts';

const DAY = 86_400_000;
const NOW = new Date('2026-06-01T00:00:00Z');
const valid = { notBefore: NOW.getTime() - DAY, notAfter: NOW.getTime() + 30 * DAY };
let ca: Awaited<ReturnType<typeof testCa>>;
let shop: PemPair;

beforeAll(async () => {
  ca = await testCa({ notBefore: NOW.getTime() - DAY, notAfter: NOW.getTime() + 365 * DAY }, 'test-ca');
  shop = await testLeaf(ca, ['shop.example.com', 'www.example.com'], valid);
});

const check = (pair: PemPair, host: string, chain = pair.certPem) => checkCertificate({ chainPem: chain, keyPem: pair.keyPem, host, now: NOW });

describe('certificate checks (node X509Certificate)', () => {
  it('accepts a current certificate covering the host with its own key, and describes it', () => {
    const r = check(shop, 'www.example.com', `${shop.certPem}${ca.certPem}`);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.certificate.dnsNames).toEqual(['shop.example.com', 'www.example.com']);
    expect(r.certificate.notAfter).toBe(new Date(valid.notAfter).toISOString().replace(/\.\d{3}Z$/, '.000Z'));
    expect(r.certificate.serialNumber).toMatch(/^[0-9A-F]+$/);
    expect(r.certificate.issuer).toContain('CN=test-ca');
    // The chain is kept, leaf first, for the routers to send.
    expect(r.chainPem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
  });

  it('covers a host through a wildcard, one label deep only', async () => {
    const wild = await testLeaf(ca, ['*.example.com'], valid);
    expect(check(wild, 'shop.example.com').ok).toBe(true);
    const deep = check(wild, 'a.shop.example.com');
    expect(!deep.ok && deep.problem).toBe('hostNotCovered');
  });

  it.each([
    ['expired', { notBefore: NOW.getTime() - 30 * DAY, notAfter: NOW.getTime() - DAY }],
    ['notYetValid', { notBefore: NOW.getTime() + DAY, notAfter: NOW.getTime() + 30 * DAY }],
  ])('%s', async (problem, validity) => {
    const r = check(await testLeaf(ca, ['shop.example.com'], validity), 'shop.example.com');
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problem).toBe(problem);
    expect(r.certificate?.dnsNames).toEqual(['shop.example.com']);
  });

  it('names the hosts a certificate covers when it does not cover this one', () => {
    const r = check(shop, 'api.example.com');
    expect(!r.ok && [r.problem, r.message]).toEqual(['hostNotCovered', 'the certificate does not cover api.example.com (it names shop.example.com, www.example.com)']);
  });

  it('refuses a key that is not the certificate\'s, or not a key', async () => {
    const other = await testLeaf(ca, ['shop.example.com'], valid);
    const r = checkCertificate({ chainPem: shop.certPem, keyPem: other.keyPem, host: 'shop.example.com', now: NOW });
    expect(!r.ok && r.problem).toBe('keyMismatch');
    const g = checkCertificate({ chainPem: shop.certPem, keyPem: 'garbage', host: 'shop.example.com', now: NOW });
    expect(!g.ok && g.problem).toBe('keyMismatch');
    // The message never carries key material.
    expect(!r.ok && r.message).not.toMatch(/BEGIN|PRIVATE/);
  });

  it('refuses a CA certificate in place of the server\'s, a client-only certificate, and text that is no certificate', async () => {
    const r = check(ca, 'shop.example.com');
    expect(!r.ok && [r.problem, r.message]).toEqual(['notForServers', 'tls.crt starts with a CA certificate, not the server certificate']);
    const client = await testLeaf(ca, ['shop.example.com'], valid, 'client');
    const c = check(client, 'shop.example.com');
    expect(!c.ok && c.problem).toBe('notForServers');
    const g = checkCertificate({ chainPem: 'not pem', keyPem: shop.keyPem, host: 'shop.example.com', now: NOW });
    expect(!g.ok && g.problem).toBe('unparsable');
  });
});
