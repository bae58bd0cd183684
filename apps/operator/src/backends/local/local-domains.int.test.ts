/**
 * Custom domains on the local backend, end to end with real processes: the local operator reads a
 * TLS Secret from the local secret files, checks it, writes status.domains (the claim rule picks
 * the older of two Functions listing one host) and hands the certificate to the routers as
 * `<data-dir>/router-certs/<host>.pem`; a real router with `--tls-port` reading that folder
 * serves the Function's real worker over HTTPS to a TLS client trusting only the test CA; an
 * expired replacement leaves the routers, a renewed one comes back, without restarting anything.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DomainStatus, OrreryFunction } from '@orrery/spec';
import { issueCa, issueServing, type PemPair } from '../kubernetes/bootstrap/webhook-certificates.ts';
import { type LocalOperatorProcess, startLocalOperator } from '../../testing/local-operator-process.ts';
import { type SpawnedServer, spawnServer, until } from '../../testing/spawn-server.ts';
import { ROUTER_BIN } from './local-router-fleet.ts';

const HOST = 'shop.example.test';
const DAY = 86_400_000;
let local: LocalOperatorProcess;
let router: SpawnedServer | undefined;
let ca: PemPair;
let tlsPort = 0;

/** What `orrery tls cert --secret` and `orrery secret set` write: one 0600 file per key. */
function setLocalTlsSecret(namespace: string, name: string, pair: PemPair): void {
  const dir = join(local.dir, 'secrets', namespace, name);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const [key, value] of [['tls.crt', pair.certPem], ['tls.key', pair.keyPem]] as const) {
    writeFileSync(join(dir, `${key}.tmp`), value, { mode: 0o600 });
    renameSync(join(dir, `${key}.tmp`), join(dir, key));
  }
}

const fnObj = (namespace: string, name: string, greeting: string) => ({
  apiVersion: 'orrery.dev/v1alpha1',
  kind: 'Function',
  metadata: { name, namespace },
  spec: {
    template: { source: { inline: `export default () => new Response(${JSON.stringify(greeting)})` }, timeoutSeconds: 10 },
    domains: [{ host: HOST, tls: { secretName: 'shop-tls' }, redirectToHTTPS: true }],
  },
});

const domainsOf = async (namespace: string, name: string): Promise<DomainStatus[] | undefined> => ((await local.store.get('Function', namespace, name)) as OrreryFunction | undefined)?.status?.domains;

function httpsGet(path: string): Promise<{ status: number; body: string; serial: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: '127.0.0.1', port: tlsPort, path, servername: HOST, ca: ca.certPem, agent: false, headers: { host: HOST } }, (res) => {
      const socket = res.socket as TLSSocket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, serial: socket.getPeerCertificate().serialNumber, authorized: socket.authorized }));
    });
    req.on('error', reject);
    req.end();
  });
}

beforeAll(async () => {
  local = await startLocalOperator('orrery-domains-');
  const now = Date.now();
  ca = await issueCa({ notBefore: now - DAY, notAfter: now + 365 * DAY }, 'orrery-test-ca');
}, 90_000);

afterAll(async () => {
  await router?.stop();
  await local?.stop();
});

describe('custom domains on the local backend (operator + router processes)', () => {
  it('checks the local TLS Secret, reports status.domains, hands the certificate to a TLS router, and follows replacements', async () => {
    const now = Date.now();
    const first = await issueServing(ca, [HOST], { notBefore: now - DAY, notAfter: now + 30 * DAY });
    setLocalTlsSecret('default', 'shop-tls', first);
    await local.store.apply(fnObj('default', 'shop', 'hello over tls'));
    // A second Function, created later in another namespace, lists the same host: it does not get it.
    await new Promise((r) => setTimeout(r, 1_100)); // creation times differ by whole seconds
    await local.store.apply(fnObj('other', 'thief', 'stolen'));

    const ready = await until(() => domainsOf('default', 'shop'), (d) => d?.[0]?.ready === true, 30_000, 'shop status.domains Ready');
    expect(ready![0]!).toMatchObject({ host: HOST, reason: 'Ready', certificate: { dnsNames: [HOST] } });
    const claimed = await until(() => domainsOf('other', 'thief'), (d) => d?.[0]?.reason === 'DomainClaimed', 30_000, 'thief DomainClaimed');
    expect(claimed![0]!.claimedBy).toBe('default/shop');

    // The routers' copy: only the checked certificate, private to the platform's user.
    const certsDir = join(local.dir, 'router-certs');
    const bundleFile = join(certsDir, `${HOST}.pem`);
    expect(statSync(certsDir).mode & 0o777).toBe(0o700);
    expect(statSync(bundleFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(bundleFile, 'utf8')).toContain(first.keyPem.trim());

    router = await spawnServer(ROUTER_BIN, [
      '--port', '0', '--admin-port', '0', '--store-url', local.op.url, '--store-token-file', join(local.dir, 'secrets', 'store.token'),
      '--endpoints-file', local.endpointsFile, '--tls-port', '0', '--tls-certs-dir', certsDir,
    ]);
    tlsPort = Number(/ tls https:\/\/127\.0\.0\.1:(\d+)/.exec(router.output())![1]);
    const answer = await until(() => httpsGet('/'), (a) => a.status === 200, 30_000, 'the worker over HTTPS');
    expect([answer.body, answer.authorized]).toEqual(['hello over tls', true]);
    const firstSerial = answer.serial;

    // Expired: the operator says so and the routers stop serving it (the handshake is refused).
    setLocalTlsSecret('default', 'shop-tls', await issueServing(ca, [HOST], { notBefore: now - 30 * DAY, notAfter: now - DAY }));
    // The two files are replaced one after the other: a check between them sees the new
    // certificate with the old key (keyMismatch) before the pair settles as expired.
    const expired = await until(() => domainsOf('default', 'shop'), (d) => d?.[0]?.reason === 'CertificateInvalid' && d[0].problem === 'expired', 30_000, 'CertificateInvalid (expired)');
    expect(expired![0]!.problem).toBe('expired');
    await until(() => existsSync(bundleFile), (present) => !present, 10_000, 'the expired certificate leaves the routers');
    await until(() => httpsGet('/').then(() => 'served', (err: NodeJS.ErrnoException) => err.code), (r) => r === 'ECONNRESET', 10_000, 'handshake refused');

    // Renewed: back without a restart, with the new serial.
    const t0 = Date.now();
    const renewed = await issueServing(ca, [HOST], { notBefore: now - DAY, notAfter: now + 60 * DAY });
    setLocalTlsSecret('default', 'shop-tls', renewed);
    const back = await until(() => httpsGet('/').catch(() => undefined), (a) => a?.status === 200, 20_000, 'renewed certificate served');
    console.log(`renewed local Secret served by the router after ${Date.now() - t0} ms`);
    expect(back!.serial).not.toBe(firstSerial);
    expect((await domainsOf('default', 'shop'))![0]!.ready).toBe(true);
  }, 120_000);
});
