import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { FunctionSchema, type OrreryFunction } from '@orrery/spec';
import { DomainsPanel } from './domains-panel.tsx';

const NOW = Date.parse('2026-12-03T00:00:00Z');
const fnWith = (domains: unknown, status?: unknown): OrreryFunction =>
  FunctionSchema.parse({
    apiVersion: 'orrery.dev/v1alpha1',
    kind: 'Function',
    metadata: { name: 'shop', namespace: 'default' },
    spec: { template: { source: { inline: 'export default () => new Response("ok")' } }, domains },
    status,
  });

describe('DomainsPanel', () => {
  it('says where to add a domain when there is none', () => {
    const html = renderToStaticMarkup(<DomainsPanel fn={fnWith(undefined)} now={NOW} />);
    expect(html).toContain('data-testid="domains-none"');
    expect(html).not.toContain('<table');
  });

  it('shows each host with its Secret, the operator\'s verdict and the certificate\'s used life', () => {
    const fn = fnWith(
      [
        { host: 'shop.example.com', tls: { secretName: 'shop-tls' }, redirectToHTTPS: true },
        { host: 'taken.example.com' },
        { host: 'bad.example.com', tls: { secretName: 'bad-tls' } },
        { host: 'new.example.com' },
      ],
      {
        domains: [
          {
            host: 'shop.example.com',
            ready: true,
            reason: 'Ready',
            certificate: { notBefore: '2026-11-03T00:00:00Z', notAfter: '2027-01-02T00:00:00Z', serialNumber: '01', issuer: 'CN=dev', dnsNames: ['shop.example.com'] },
          },
          { host: 'taken.example.com', ready: false, reason: 'DomainClaimed', claimedBy: 'other/shop' },
          { host: 'bad.example.com', ready: false, reason: 'CertificateInvalid', problem: 'expired' },
        ],
      },
    );
    const html = renderToStaticMarkup(<DomainsPanel fn={fn} now={NOW} />);
    expect(html).toContain('Secret <code>shop-tls</code><div class="muted">HTTP redirects to HTTPS</div>');
    expect(html).toContain('data-testid="domain-served-shop.example.com"><span class="">yes</span>');
    expect(html).toContain('DomainClaimed by other/shop');
    expect(html).toContain('CertificateInvalid (expired)');
    expect(html).toMatch(/data-testid="domain-served-new.example.com"><span class="muted">not yet reconciled/);
    // 30 of 60 days used: half the bar; 30 days left.
    expect(html).toContain('width="70"');
    expect(html).toContain('expires in 30 days');
  });

  it('says how long ago an expired certificate ran out', () => {
    const fn = fnWith([{ host: 'old.example.com', tls: { secretName: 'old' } }], {
      domains: [{ host: 'old.example.com', ready: false, reason: 'CertificateInvalid', problem: 'expired', certificate: { notBefore: '2026-01-01T00:00:00Z', notAfter: '2026-11-30T00:00:00Z', serialNumber: '02', issuer: 'CN=dev', dnsNames: ['old.example.com'] } }],
    });
    expect(renderToStaticMarkup(<DomainsPanel fn={fn} now={NOW} />)).toContain('expired 3 days ago');
  });
});
