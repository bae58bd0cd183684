import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, createServer, type TLSSocket } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { run as tlsCommand } from '../commands/tls.ts';
import { devCaPaths, ensureDevCa, issueDevCertificate } from './dev-ca.ts';

const dirs: string[] = [];
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'orrery-dev-ca-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** A real TLS handshake against the leaf, the development CA as the client's only trust anchor. */
async function handshake(leaf: { certPem: string; keyPem: string }, caPem: string, servername: string): Promise<{ authorized: boolean; error?: string; serial: string }> {
  const server = createServer({ cert: leaf.certPem, key: leaf.keyPem }, (s) => s.end('ok'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    return await new Promise((resolve, reject) => {
      const s: TLSSocket = connect({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, servername, ca: caPem, rejectUnauthorized: false }, () => {
        resolve({ authorized: s.authorized, error: s.authorizationError ? String(s.authorizationError) : undefined, serial: s.getPeerCertificate().serialNumber });
        s.destroy();
      });
      s.on('error', reject);
    });
  } finally {
    server.close();
  }
}

describe('development CA', () => {
  it('makes a CA once (key 0600 in a 0700 folder) and reuses it', async () => {
    const dir = dataDir();
    const a = await ensureDevCa(dir);
    expect(a.created).toBe(true);
    const p = devCaPaths(dir);
    expect(statSync(p.dir).mode & 0o777).toBe(0o700);
    expect(statSync(p.key).mode & 0o777).toBe(0o600);
    const cert = new X509Certificate(readFileSync(p.cert));
    expect(cert.ca).toBe(true);
    expect(cert.subject).toContain('Orrery development CA');
    const b = await ensureDevCa(dir);
    expect([b.created, b.certPem]).toEqual([false, a.certPem]);
  });

  it('replaces a CA that ends within 30 days', async () => {
    const dir = dataDir();
    const a = await ensureDevCa(dir, new Date(Date.now() - 800 * 86_400_000));
    const b = await ensureDevCa(dir);
    expect(b.created).toBe(true);
    expect(b.certPem).not.toBe(a.certPem);
  });

  it('issues leaves a real TLS client verifies against the CA alone, for exactly their hosts', async () => {
    const ca = await ensureDevCa(dataDir());
    const leaf = await issueDevCertificate(ca, ['hello.localtest.me', 'www.localtest.me'], { days: 30 });
    const x = new X509Certificate(leaf.certPem);
    expect(x.checkIssued(new X509Certificate(ca.certPem))).toBe(true);
    expect(x.subjectAltName).toBe('DNS:hello.localtest.me, DNS:www.localtest.me');
    expect(x.ca).toBe(false);
    expect(Date.parse(x.validTo) - Date.now()).toBeLessThanOrEqual(30 * 86_400_000);
    expect(await handshake(leaf, ca.certPem, 'hello.localtest.me')).toMatchObject({ authorized: true, serial: leaf.serialNumber });
    // Another name: the chain verifies, the name does not.
    expect(await handshake(leaf, ca.certPem, 'other.localtest.me')).toMatchObject({ authorized: false, error: 'ERR_TLS_CERT_ALTNAME_INVALID' });
    // Another data dir's CA does not vouch for it.
    expect((await handshake(leaf, (await ensureDevCa(dataDir())).certPem, 'hello.localtest.me')).authorized).toBe(false);
  });
});

describe('orrery tls cert', () => {
  it('stores the certificate as the local Secret <first label>-tls with tls.crt and tls.key (0600)', async () => {
    const dir = dataDir();
    const log = vi.spyOn(console, 'log').mockImplementation(() => {});
    try {
      expect(await tlsCommand(['cert', 'Hello.LocalTest.me', '--data-dir', dir])).toBe(0);
    } finally {
      log.mockRestore();
    }
    const secretDir = join(dir, 'secrets', 'default', 'hello-tls');
    for (const key of ['tls.crt', 'tls.key']) expect(statSync(join(secretDir, key)).mode & 0o777).toBe(0o600);
    const x = new X509Certificate(readFileSync(join(secretDir, 'tls.crt')));
    expect(x.checkHost('hello.localtest.me')).toBe('hello.localtest.me');
    expect(x.checkPrivateKey((await import('node:crypto')).createPrivateKey(readFileSync(join(secretDir, 'tls.key'))))).toBe(true);
  });

  it('refuses a wildcard, an IP address and a bad secret name with exit code 2', async () => {
    const dir = dataDir();
    const err = vi.spyOn(console, 'error').mockImplementation(() => {});
    try {
      expect(await tlsCommand(['cert', '*.localtest.me', '--data-dir', dir])).toBe(2);
      expect(await tlsCommand(['cert', '127.0.0.1', '--data-dir', dir])).toBe(2);
      expect(await tlsCommand(['cert', 'a.localtest.me', '--secret', 'Bad_Name', '--data-dir', dir])).toBe(2);
      expect(await tlsCommand(['cert', 'a.localtest.me', '--days', '1000', '--data-dir', dir])).toBe(2);
    } finally {
      err.mockRestore();
    }
  });
});
