/**
 * One file of the router's certificate folder (`<host>.pem`, @orrery/spec router-certificates.ts):
 * the certificate chain, leaf first, then the private key. Split apart here so each goes where
 * TLS expects it, and described (serial, expiry) for the reload log — never the key. Pure.
 */
import { X509Certificate } from 'node:crypto';

export interface CertificateBundle {
  /** The CERTIFICATE blocks, in order. */
  chainPem: string;
  /** The one private key block. */
  keyPem: string;
}

const CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;
const KEY = /-----BEGIN (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----[\s\S]+?-----END (?:RSA |EC |ENCRYPTED )?PRIVATE KEY-----/g;

/** The chain and the key, or why not (the message names no key material). */
export function splitBundle(text: string): CertificateBundle | { problem: string } {
  const certs = text.match(CERT) ?? [];
  const keys = text.match(KEY) ?? [];
  if (certs.length === 0) return { problem: 'no CERTIFICATE block' };
  if (keys.length !== 1) return { problem: keys.length === 0 ? 'no PRIVATE KEY block' : `${keys.length} PRIVATE KEY blocks (want one)` };
  if (/ENCRYPTED/.test(keys[0].slice(0, 40))) return { problem: 'the private key is encrypted (the router has no passphrase)' };
  return { chainPem: `${certs.join('\n')}\n`, keyPem: `${keys[0]}\n` };
}

/** What the reload log says about a leaf certificate: serial, expiry, whether it covers the host. */
export interface LeafFacts {
  serialNumber: string;
  notAfter: string;
  coversHost: boolean;
}

export function leafFacts(chainPem: string, host: string): LeafFacts | undefined {
  try {
    const leaf = new X509Certificate(chainPem);
    return { serialNumber: leaf.serialNumber, notAfter: new Date(leaf.validTo).toISOString(), coversHost: leaf.checkHost(host, { subject: 'never', wildcards: true, partialWildcards: false }) !== undefined };
  } catch {
    return undefined;
  }
}
