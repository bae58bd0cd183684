/**
 * Whether a Secret's certificate can serve a host, judged with node's X509Certificate: it parses,
 * its key is the certificate's, it is valid now, it is meant for servers (not a CA; extended key
 * usage, when present, allows serverAuth), and it covers the host (subjectAltName DNS names,
 * wildcards as browsers read them; the common name is ignored, as browsers do). The first failure
 * names the problem. Nothing of the key leaves this function. Pure but for the parsing.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { CertificateProblem, DomainCertificate } from '@orrery/spec';

export type CertificateCheck =
  | { ok: true; certificate: DomainCertificate; chainPem: string }
  | { ok: false; problem: CertificateProblem; message: string; certificate?: DomainCertificate };

const CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const ANY_EXTENDED_USAGE = '2.5.29.37.0';

export function dnsNames(cert: X509Certificate): string[] {
  // subjectAltName: "DNS:a.example.com, DNS:b.example.com, IP Address:…" (node's text form).
  return (cert.subjectAltName ?? '')
    .split(', ')
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
}

function facts(cert: X509Certificate): DomainCertificate {
  return {
    notBefore: new Date(cert.validFrom).toISOString(),
    notAfter: new Date(cert.validTo).toISOString(),
    serialNumber: cert.serialNumber.toUpperCase(),
    issuer: cert.issuer.split('\n').join(', '),
    dnsNames: dnsNames(cert),
  };
}

export function checkCertificate(o: { chainPem: string; keyPem: string; host: string; now: Date }): CertificateCheck {
  const blocks = o.chainPem.match(CERT) ?? [];
  let leaf: X509Certificate;
  try {
    if (blocks.length === 0) throw new Error('no certificate');
    leaf = new X509Certificate(blocks[0]!);
  } catch {
    return { ok: false, problem: 'unparsable', message: 'tls.crt holds no PEM certificate that parses' };
  }
  const certificate = facts(leaf);
  let keyMatches = false;
  try {
    keyMatches = leaf.checkPrivateKey(createPrivateKey(o.keyPem));
  } catch {
    return { ok: false, problem: 'keyMismatch', message: 'tls.key holds no unencrypted PEM private key that parses', certificate };
  }
  if (!keyMatches) return { ok: false, problem: 'keyMismatch', message: 'tls.key is not the private key of the certificate in tls.crt', certificate };
  const now = o.now.getTime();
  if (now < Date.parse(certificate.notBefore)) return { ok: false, problem: 'notYetValid', message: `the certificate is valid only from ${certificate.notBefore}`, certificate };
  if (now > Date.parse(certificate.notAfter)) return { ok: false, problem: 'expired', message: `the certificate expired at ${certificate.notAfter}: renew it`, certificate };
  const usages = leaf.keyUsage;
  if (leaf.ca || (usages && usages.length > 0 && !usages.includes(SERVER_AUTH) && !usages.includes(ANY_EXTENDED_USAGE))) {
    return { ok: false, problem: 'notForServers', message: leaf.ca ? 'tls.crt starts with a CA certificate, not the server certificate' : 'the certificate\'s extended key usage does not allow TLS servers (serverAuth)', certificate };
  }
  if (leaf.checkHost(o.host, { subject: 'never', wildcards: true, partialWildcards: false }) === undefined) {
    const names = certificate.dnsNames.length ? certificate.dnsNames.join(', ') : 'no DNS names';
    return { ok: false, problem: 'hostNotCovered', message: `the certificate does not cover ${o.host} (it names ${names})`, certificate };
  }
  return { ok: true, certificate, chainPem: `${blocks.join('\n')}\n` };
}
