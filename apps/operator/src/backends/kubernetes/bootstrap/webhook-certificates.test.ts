import { X509Certificate, createPrivateKey } from 'node:crypto';
import { once } from 'node:events';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { request } from 'node:https';
import { describe, expect, it } from 'vitest';
import { caFacts, issueCa, issueServing, keyMatches, servingFacts, splitPemBundle } from './webhook-certificates.ts';

const DAY = 86_400_000;
const now = Date.now();
const names = ['orrery-webhook.orrery-system.svc', 'orrery-webhook.orrery-system.svc.cluster.local'];

describe('webhook certificates (ECDSA P-256)', () => {
  it('a CA and a serving certificate a TLS client accepts for the Service name, with the CA alone as trust', async () => {
    const ca = await issueCa({ notBefore: now - 60_000, notAfter: now + 5 * 365 * DAY }, 'orrery-webhook-ca');
    const serving = await issueServing(ca, names, { notBefore: now - 60_000, notAfter: now + 365 * DAY });
    const c = new X509Certificate(serving.certPem);
    expect(c.subjectAltName).toBe(`DNS:${names[0]}, DNS:${names[1]}`);
    expect(c.publicKey.asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    expect(new X509Certificate(ca.certPem).ca).toBe(true);
    expect(c.ca).toBe(false);

    // A real handshake: Node's TLS verifies the chain and the name, as the API server does.
    const server = createServer({ cert: serving.certPem, key: serving.keyPem }, (_req, res) => res.end('ok'));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as AddressInfo).port;
    const get = (servername: string, caPem: string) =>
      new Promise<string>((resolve, reject) => {
        const req = request({ host: '127.0.0.1', port, servername, ca: caPem, path: '/', headers: { host: servername } }, (res) => {
          res.setEncoding('utf8');
          let body = '';
          res.on('data', (d: string) => (body += d));
          res.on('end', () => resolve(body));
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await get(names[0]!, ca.certPem)).toBe('ok');
      await expect(get('other.orrery-system.svc', ca.certPem)).rejects.toThrow(/altnames|Hostname/i);
      const stranger = await issueCa({ notBefore: now - 60_000, notAfter: now + DAY }, 'stranger');
      await expect(get(names[0]!, stranger.certPem)).rejects.toThrow(/certificate/i);
    } finally {
      server.close();
    }
  });

  it('reads back what the plan needs: validity, names, issuer, key match', async () => {
    const ca = await issueCa({ notBefore: now - 60_000, notAfter: now + 10 * DAY }, 'ca');
    const other = await issueCa({ notBefore: now - 60_000, notAfter: now + 10 * DAY }, 'ca');
    const serving = await issueServing(ca, names, { notBefore: now - 60_000, notAfter: now + DAY });
    const f = servingFacts(serving.certPem, serving.keyPem, ca.certPem)!;
    expect(f.dnsNames).toEqual(names);
    expect(f.issuedByCurrentCa).toBe(true);
    // Seconds precision in X.509 validity.
    expect(Math.abs(f.notAfter - (now + DAY))).toBeLessThan(1000);
    expect(servingFacts(serving.certPem, serving.keyPem, other.certPem)!.issuedByCurrentCa).toBe(false);
    expect(servingFacts(serving.certPem, other.keyPem, ca.certPem)).toBeUndefined();
    expect(servingFacts('garbage', serving.keyPem, ca.certPem)).toBeUndefined();
    expect(caFacts(ca.certPem)).toMatchObject({ pem: ca.certPem });
    expect(caFacts(serving.certPem)).toBeUndefined(); // not a CA
    expect(keyMatches(ca.certPem, ca.keyPem)).toBe(true);
    expect(keyMatches(ca.certPem, other.keyPem)).toBe(false);
    expect(createPrivateKey(serving.keyPem).asymmetricKeyType).toBe('ec');
  });

  it('splits a bundle into its certificates in order', async () => {
    const a = await issueCa({ notBefore: now, notAfter: now + DAY }, 'a');
    const b = await issueCa({ notBefore: now, notAfter: now + DAY }, 'b');
    expect(splitPemBundle(`${a.certPem}${b.certPem}`)).toEqual([a.certPem, b.certPem]);
    expect(splitPemBundle(undefined)).toEqual([]);
  });
});
