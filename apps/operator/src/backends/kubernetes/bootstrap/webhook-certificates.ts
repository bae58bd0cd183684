/**
 * ECDSA P-256 certificates for the admission webhook: a self-signed CA and a serving
 * certificate for the webhook Service's DNS names (what Knative's webhook makes for itself).
 * Built with @peculiar/x509 on node's WebCrypto; read back with node's X509Certificate.
 */
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect
// metadata API.
import 'reflect-metadata';
import { X509Certificate, createPrivateKey, randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';
import type { CertFacts, ServingFacts } from './webhook-cert-plan.ts';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

export interface PemPair {
  certPem: string;
  keyPem: string;
}

// Positive 16-byte serial (RFC 5280: at most 20 octets, non-negative).
const serial = () => {
  const b = randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
};

async function newKeys(): Promise<CryptoKeyPair> {
  return await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
}

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return await webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

const certPem = (c: x509.X509Certificate) => `${c.toString('pem')}\n`;

export async function issueCa(validity: CertFacts, commonName: string): Promise<PemPair> {
  const keys = await newKeys();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(validity.notBefore),
    notAfter: new Date(validity.notAfter),
    keys,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: certPem(cert), keyPem: await keyPem(keys.privateKey) };
}

export async function issueServing(ca: PemPair, dnsNames: string[], validity: CertFacts): Promise<PemPair> {
  const keys = await newKeys();
  const caCert = new x509.X509Certificate(ca.certPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${dnsNames[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(validity.notBefore),
    notAfter: new Date(validity.notAfter),
    signingKey: await importKey(ca.keyPem),
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  return { certPem: certPem(cert), keyPem: await keyPem(keys.privateKey) };
}

/** The certificates of a PEM bundle, in order; unparsable blocks are skipped. */
export function splitPemBundle(bundle: string | undefined): string[] {
  return (bundle ?? '').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g)?.map((p) => `${p}\n`) ?? [];
}

const facts = (c: X509Certificate): CertFacts => ({ notBefore: Date.parse(c.validFrom), notAfter: Date.parse(c.validTo) });

function parse(pem: string): X509Certificate | undefined {
  try {
    return new X509Certificate(pem);
  } catch {
    return undefined;
  }
}

export function caFacts(pem: string | undefined): (CertFacts & { pem: string }) | undefined {
  const c = pem ? parse(pem) : undefined;
  return c?.ca ? { ...facts(c), pem: pem! } : undefined;
}

/** What the plan needs of a serving certificate; undefined when it is unusable (unparsable, key does not match). */
export function servingFacts(certPemText: string | undefined, keyPemText: string | undefined, caPem: string | undefined): ServingFacts | undefined {
  const c = certPemText ? parse(certPemText) : undefined;
  if (!c || !keyPemText) return undefined;
  try {
    if (!c.checkPrivateKey(createPrivateKey(keyPemText))) return undefined;
  } catch {
    return undefined;
  }
  const ca = caPem ? parse(caPem) : undefined;
  const dnsNames = (c.subjectAltName ?? '').split(', ').filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4));
  return { ...facts(c), dnsNames, issuedByCurrentCa: !!ca && c.checkIssued(ca) && c.verify(ca.publicKey) };
}

/** The CA's key really belongs to the CA certificate (a Secret edited by hand may pair them wrongly). */
export function keyMatches(certPemText: string, keyPemText: string | undefined): boolean {
  const c = parse(certPemText);
  if (!c || !keyPemText) return false;
  try {
    return c.checkPrivateKey(createPrivateKey(keyPemText));
  } catch {
    return false;
  }
}
