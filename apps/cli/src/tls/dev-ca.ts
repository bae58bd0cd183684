/**
 * The local platform's development CA (`orrery tls dev-ca`, `orrery up --tls`; docs/domains.md):
 * a self-signed ECDSA P-256 CA kept in `<data-dir>/tls/` (folder 0700, key 0600), and
 * certificates it issues for the hosts of spec.domains, stored as local Secrets so
 * `tls.secretName` finds them. Built with @peculiar/x509 on node's WebCrypto, read back with
 * node's X509Certificate. For development only: a machine that trusts this CA trusts anything its
 * key signs, so the key never leaves the data dir and `orrery tls dev-ca` says how to untrust it.
 */
// @peculiar/x509 resolves its algorithm providers through tsyringe, which needs the Reflect metadata API.
import 'reflect-metadata';
import { X509Certificate, randomBytes, webcrypto } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ALG = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const DAY_MS = 86_400_000;
/** The CA lives long; a leaf at most 397 days (what browsers accept). */
export const DEV_CA_DAYS = 825;
export const MAX_LEAF_DAYS = 397;
/** A CA this close to its end is replaced (its leaves would outlive it). */
const RENEW_CA_WITHIN_DAYS = 30;

export const DEV_CA_DIR = 'tls';
export const DEV_CA_CERT = 'dev-ca.crt';
const DEV_CA_KEY = 'dev-ca.key';

export interface PemPair {
  certPem: string;
  keyPem: string;
}

export interface DevCa extends PemPair {
  certFile: string;
  /** Made now (false: the existing one was reused). */
  created: boolean;
  notAfter: Date;
}

// Positive 16-byte serial (RFC 5280: at most 20 octets, non-negative).
const serial = (): string => {
  const b = randomBytes(16);
  b[0]! &= 0x7f;
  return b.toString('hex');
};

async function keyPem(key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key));
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64').replace(/(.{64})/g, '$1\n').trimEnd()}\n-----END PRIVATE KEY-----\n`;
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  return await webcrypto.subtle.importKey('pkcs8', der, ALG, false, ['sign']);
}

/** Written to a temporary name and renamed, with its mode from the start. */
function writePrivate(file: string, text: string, mode: number): void {
  const tmp = `${file}.tmp-${process.pid}`;
  writeFileSync(tmp, text, { mode });
  chmodSync(tmp, mode);
  renameSync(tmp, file);
}

export function devCaPaths(dataDir: string): { dir: string; cert: string; key: string } {
  const dir = join(dataDir, DEV_CA_DIR);
  return { dir, cert: join(dir, DEV_CA_CERT), key: join(dir, DEV_CA_KEY) };
}

/** The data dir's development CA: the existing one while it is valid for 30 more days, else a new one. */
export async function ensureDevCa(dataDir: string, now = new Date()): Promise<DevCa> {
  const p = devCaPaths(dataDir);
  if (existsSync(p.cert) && existsSync(p.key)) {
    const certPem = readFileSync(p.cert, 'utf8');
    const cert = new X509Certificate(certPem);
    const notAfter = new Date(cert.validTo);
    if (cert.ca && notAfter.getTime() - now.getTime() > RENEW_CA_WITHIN_DAYS * DAY_MS) return { certPem, keyPem: readFileSync(p.key, 'utf8'), certFile: p.cert, created: false, notAfter };
  }
  mkdirSync(p.dir, { recursive: true, mode: 0o700 });
  chmodSync(p.dir, 0o700);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const notAfter = new Date(now.getTime() + DEV_CA_DAYS * DAY_MS);
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    // Named for the machine and the day, so a trust store shows which one it is.
    name: `CN=Orrery development CA (${hostname().replace(/[,=+<>#;"\\]/g, '-')} ${now.toISOString().slice(0, 10)}), O=Orrery development`,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    keys,
    signingAlgorithm: ALG,
    extensions: [
      // pathLen 0: it signs leaves only, never another CA.
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pair = { certPem: `${cert.toString('pem')}\n`, keyPem: await keyPem(keys.privateKey) };
  writePrivate(p.key, pair.keyPem, 0o600);
  writePrivate(p.cert, pair.certPem, 0o644);
  return { ...pair, certFile: p.cert, created: true, notAfter };
}

/** A serving certificate for `hosts` (subjectAltName DNS names), signed by the development CA. */
export async function issueDevCertificate(ca: PemPair, hosts: readonly string[], o: { now?: Date; days?: number } = {}): Promise<PemPair & { serialNumber: string; notAfter: Date }> {
  if (hosts.length === 0) throw new TypeError('name at least one host');
  const now = o.now ?? new Date();
  const days = Math.min(o.days ?? 90, MAX_LEAF_DAYS);
  const caCert = new x509.X509Certificate(ca.certPem);
  const keys = await webcrypto.subtle.generateKey(ALG, true, ['sign', 'verify']);
  const notAfter = new Date(Math.min(now.getTime() + days * DAY_MS, caCert.notAfter.getTime()));
  const cert = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject: `CN=${hosts[0]}`,
    issuer: caCert.subject,
    notBefore: new Date(now.getTime() - 60_000),
    notAfter,
    signingKey: await importKey(ca.keyPem),
    publicKey: keys.publicKey,
    signingAlgorithm: ALG,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: 'dns' as const, value }))),
      await x509.AuthorityKeyIdentifierExtension.create(caCert),
    ],
  });
  const certPem = `${cert.toString('pem')}\n`;
  return { certPem, keyPem: await keyPem(keys.privateKey), serialNumber: new X509Certificate(certPem).serialNumber, notAfter };
}

/** How to trust (and later untrust) the CA, for people. */
export function trustInstructions(certFile: string): string {
  return [
    `The development CA is ${certFile}. Trust it where you test (development machines only):`,
    `  curl:     curl --cacert ${certFile} https://HOST:PORT/`,
    `  Node.js:  NODE_EXTRA_CA_CERTS=${certFile} node …`,
    `  Debian:   sudo cp ${certFile} /usr/local/share/ca-certificates/orrery-dev-ca.crt && sudo update-ca-certificates`,
    `            (untrust: sudo rm /usr/local/share/ca-certificates/orrery-dev-ca.crt && sudo update-ca-certificates --fresh)`,
    `  macOS:    sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain ${certFile}`,
    '  Firefox:  Settings → Privacy & Security → Certificates → View Certificates → Authorities → Import',
    'Anything its key signs is trusted wherever you trust it: the key stays in the data dir (0600); never share it.',
  ].join('\n');
}
