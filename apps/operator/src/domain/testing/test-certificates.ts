/**
 * Certificates for the domain tests, made with @peculiar/x509 on node's WebCrypto (ECDSA P-256):
 * a CA and leaves with any validity window and extended key usage, so every check of
 * certificate-check.ts can be hit, including expired and not-yet-valid ones.
 */
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { randomBytes, webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };

export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface Validity {
  notBefore: number;
  notAfter: number;
}

const serial = () => {
  const b = randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
};

async function pkcs8(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

export async function testCa(validity: Validity, commonName = 'orrery-test-ca'): Promise<PemPair & { keys: CryptoKeyPair }> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `CN=${commonName}`,
    notBefore: new Date(validity.notBefore),
    notAfter: new Date(validity.notAfter),
    keys,
    signingAlgorithm: ALG,
    extensions: [new x509.BasicConstraintsExtension(true, 0, true), new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign, true)],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await pkcs8(keys.privateKey), keys };
}

/** A leaf for `dnsNames` signed by `ca`; `usage` is its extended key usage (default serverAuth). */
export async function testLeaf(ca: Awaited<ReturnType<typeof testCa>>, dnsNames: string[], validity: Validity, usage: 'server' | 'client' = 'server'): Promise<PemPair> {
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const caCert = new x509.X509Certificate(ca.certPem);
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${dnsNames[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(validity.notBefore),
    notAfter: new Date(validity.notAfter),
    signingKey: ca.keys.privateKey,
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.ExtendedKeyUsageExtension([usage === 'server' ? x509.ExtendedKeyUsage.serverAuth : x509.ExtendedKeyUsage.clientAuth]),
      new x509.SubjectAlternativeNameExtension(dnsNames.map((value) => ({ type: 'dns' as const, value }))),
    ],
  });
  return { certPem: `${cert.toString('pem')}\n`, keyPem: await pkcs8(keys.privateKey) };
}
