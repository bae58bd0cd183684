import { X509Certificate } from 'node:crypto';
import { request } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { issueCa, issueServing } from './webhook-certificates.ts';
import { startWebhookServer, type WebhookServer } from '../../../webhook/webhook-server.ts';

const NAME = 'orrery-webhook.orrery-system.svc';
const servers: WebhookServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** GET /healthz as the API server connects: by the Service name, trusting only `ca`. */
function get(url: string, ca: string): Promise<{ status: number; serial: string }> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, servername: NAME, path: '/healthz', ca, agent: false }, (res) => {
      const serial = (res.socket as TLSSocket).getPeerCertificate().serialNumber;
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, serial }));
    });
    req.on('error', reject);
    req.end();
  });
}

const serialOf = (pem: string) => new X509Certificate(pem).serialNumber;

describe('webhook server with an in-memory certificate (the operator’s keeper)', () => {
  it('serves the pair it was given, swaps to a new one without a restart, refuses a broken one', async () => {
    const now = Date.now();
    const oldCa = await issueCa({ notBefore: now - 60_000, notAfter: now + 86_400_000 }, 'old-ca');
    const newCa = await issueCa({ notBefore: now - 60_000, notAfter: now + 86_400_000 }, 'new-ca');
    const first = await issueServing(oldCa, [NAME], { notBefore: now - 60_000, notAfter: now + 3_600_000 });
    const second = await issueServing(newCa, [NAME], { notBefore: now - 60_000, notAfter: now + 3_600_000 });
    const logs: string[] = [];
    const s = await startWebhookServer({ tls: { cert: first.certPem, key: first.keyPem }, log: (m) => logs.push(m) });
    servers.push(s);
    expect(s.url).toMatch(/^https:/);
    const bundle = oldCa.certPem + newCa.certPem; // the overlap: both CAs trusted
    expect(await get(s.url, bundle)).toEqual({ status: 200, serial: serialOf(first.certPem) });

    s.setCertificate({ cert: second.certPem, key: second.keyPem });
    expect(await get(s.url, bundle)).toEqual({ status: 200, serial: serialOf(second.certPem) });
    // Only the new CA is needed now; the old one alone no longer verifies.
    expect((await get(s.url, newCa.certPem)).status).toBe(200);
    await expect(get(s.url, oldCa.certPem)).rejects.toThrow();

    // A key that does not belong to the certificate: refused, the previous pair keeps serving.
    s.setCertificate({ cert: first.certPem, key: second.keyPem });
    expect(await get(s.url, newCa.certPem)).toEqual({ status: 200, serial: serialOf(second.certPem) });
    expect(logs.at(-1)).toMatch(/refused, keeping the previous one/);
  });

  it('a plain-HTTP server has no certificate to set', async () => {
    const s = await startWebhookServer();
    servers.push(s);
    expect(() => s.setCertificate({ cert: 'x', key: 'y' })).toThrow(/plain HTTP/);
  });
});
