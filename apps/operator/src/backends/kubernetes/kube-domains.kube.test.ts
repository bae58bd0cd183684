/**
 * Custom domains on the real control plane: Secrets of type kubernetes.io/tls and Functions with
 * spec.domains; the operator (in process, watching the test namespace) checks the certificates,
 * writes status.domains and keeps the router-owned Secret; a real router pod (image
 * `orrery/router`, the compiled bundle, run by the process kubelet) mounts that Secret as the chart
 * does and serves both hosts over TLS with SNI to a client trusting only the test CA. A renewed
 * certificate in the user's Secret reaches a new handshake without restarting anything (the
 * operator's Secret informer → the router-owned Secret → the kubelet's volume swap → the
 * router's reload).
 */
import { request as httpsRequest } from 'node:https';
import type { TLSSocket } from 'node:tls';
import { beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@orrery/kube-testenv';
import type { DomainStatus } from '@orrery/spec';
import { issueCa, issueServing, type PemPair } from './bootstrap/webhook-certificates.ts';
import type { KubeClient, KubeObject } from './kube-client.ts';
import { KubernetesFunctionOperator } from './kube-function-operator.ts';
import { defaultServiceAccount, ROUTER_IMAGE } from './testing/kube-fixtures.ts';
import { operatorKubeSuite } from './testing/operator-kube-suite.ts';

const GV = 'orrery.dev/v1alpha1';
const kube = operatorKubeSuite();
let client: KubeClient;
beforeAll(() => void (client = kube.client));

const DAY = 86_400_000;
const SHOP = 'shop.example.test';
const API = 'api.example.test';

const tlsSecret = (ns: string, name: string, pair: PemPair): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace: ns },
    type: 'kubernetes.io/tls',
    data: { 'tls.crt': Buffer.from(pair.certPem).toString('base64'), 'tls.key': Buffer.from(pair.keyPem).toString('base64') },
  });

// No workers: the KPA keeps zero (these tests are about the edge, not the function).
const fnObj = (ns: string, name: string, host: string, secretName: string): KubeObject => ({
  apiVersion: GV,
  kind: 'Function',
  metadata: { name, namespace: ns },
  spec: {
    template: { source: { inline: 'export default () => "hi"' }, autoscaling: { minScale: 0, initialScale: 0 } },
    domains: [{ host, tls: { secretName } }],
  },
});

/** The chart's router container with TLS on, reading routes from a ConfigMap instead of the operator's store. */
function routerPod(ns: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'router', namespace: ns, labels: { app: 'router' } },
    spec: {
      terminationGracePeriodSeconds: 2,
      automountServiceAccountToken: false,
      // The chart's podSecurityContext: the mounted files (0440) are the router user's group's.
      securityContext: { runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000 },
      containers: [
        {
          name: 'router',
          image: ROUTER_IMAGE,
          args: ['--host=0.0.0.0', '--port=8080', '--admin-port=9090', '--routes-file=/etc/orrery-routes/routes.yaml', '--tls-port=8443', '--tls-certs-dir=/etc/orrery/router-certs', '--tls-redirect-port=443'],
          ports: [{ name: 'http', containerPort: 8080 }, { name: 'admin', containerPort: 9090 }, { name: 'https', containerPort: 8443 }],
          readinessProbe: { httpGet: { path: '/readyz', port: 9090 }, periodSeconds: 1 },
          volumeMounts: [
            { name: 'routes', mountPath: '/etc/orrery-routes', readOnly: true },
            { name: 'router-certs', mountPath: '/etc/orrery/router-certs', readOnly: true },
          ],
        },
      ],
      volumes: [
        { name: 'routes', configMap: { name: 'routes' } },
        // As charts/orrery/templates/router-deployment.yaml mounts the operator's Secret.
        { name: 'router-certs', secret: { secretName: 'router-certs', optional: true, defaultMode: 0o440 } },
      ],
    },
  };
}

const routesYaml = (ns: string) =>
  [
    ['shop', SHOP],
    ['api', API],
  ]
    .map(([name, host]) => `---\napiVersion: ${GV}\nkind: Function\nmetadata: {name: ${name}, namespace: ${ns}}\nspec:\n  template: {source: {inline: "x"}}\n  domains: [{host: ${host}, tls: {secretName: ${name}-tls}}]\n`)
    .join('');

function tlsGet(ip: string, servername: string, ca: string): Promise<{ status: number; body: string; serial: string; authorized: boolean }> {
  return new Promise((resolve, reject) => {
    const req = httpsRequest({ host: ip, port: 8443, path: '/', servername, ca, agent: false, headers: { host: servername }, timeout: 5_000 }, (res) => {
      const socket = res.socket as TLSSocket;
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode!, body, serial: socket.getPeerCertificate().serialNumber, authorized: socket.authorized }));
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

describe('custom domains over TLS on Kubernetes (operator, router-owned Secret, router pod)', () => {
  it('serves two hosts with SNI from the router-owned Secret and picks up a renewed certificate', { timeout: 120_000 }, async () => {
    const t0 = Date.now();
    const ns = await kube.freshNs('domains');
    await defaultServiceAccount(client, ns);
    const now = Date.now();
    const ca = await issueCa({ notBefore: now - DAY, notAfter: now + 365 * DAY }, 'orrery-kube-test-ca');
    const valid = { notBefore: now - DAY, notAfter: now + 30 * DAY };
    const shop = await issueServing(ca, [SHOP], valid);
    const api = await issueServing(ca, [API], valid);
    await client.create(tlsSecret(ns, 'shop-tls', shop));
    await client.create(tlsSecret(ns, 'api-tls', api));
    await client.apply(fnObj(ns, 'shop', SHOP, 'shop-tls'));
    await client.apply(fnObj(ns, 'api', API, 'api-tls'));
    await client.create({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'routes', namespace: ns }, data: { 'routes.yaml': routesYaml(ns) } });
    await client.create(routerPod(ns));

    const op = new KubernetesFunctionOperator({ client, namespace: ns, routerCertsSecret: { namespace: ns, name: 'router-certs' } });
    await op.start();
    kube.cleanups.push(() => op.stop());

    // status.domains, written with the Function's status by the operator.
    const domainsOf = async (name: string) => ((await client.get(GV, 'Function', ns, name))?.status as { domains?: DomainStatus[] } | undefined)?.domains;
    const ready = await eventually('shop status.domains Ready', async () => ((await domainsOf('shop'))?.[0]?.ready ? domainsOf('shop') : undefined), 30_000);
    expect(ready[0]).toMatchObject({ host: SHOP, reason: 'Ready', certificate: { dnsNames: [SHOP] } });

    // The router-owned Secret: one <host>.pem per host, nothing else.
    const bundle = await eventually('router-certs Secret', async () => {
      const s = await client.get<KubeObject & { data?: Record<string, string> }>('v1', 'Secret', ns, 'router-certs');
      return s?.data && Object.keys(s.data).length === 2 ? s : undefined;
    }, 30_000);
    expect(Object.keys(bundle.data!).sort()).toEqual([`${API}.pem`, `${SHOP}.pem`]);

    const ip = await eventually('router pod ready', async () => {
      const p = await client.get<KubeObject & { status?: { podIP?: string; conditions?: Array<{ type: string; status: string }> } }>('v1', 'Pod', ns, 'router');
      return p?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ? p.status.podIP : undefined;
    }, 60_000);

    // SNI picks each host's certificate; the chain verifies against the test CA alone.
    const shopAnswer = await eventually('shop over TLS', () => tlsGet(ip, SHOP, ca.certPem).catch(() => undefined), 30_000);
    expect([shopAnswer.authorized, shopAnswer.serial.toUpperCase()]).toEqual([true, ready[0]!.certificate!.serialNumber]);
    // Routed by host to the Function (it has no revision in this routes file: the router says so).
    expect(shopAnswer.status).toBe(503);
    expect(shopAnswer.body).toContain(`${ns}/shop`);
    const apiAnswer = await tlsGet(ip, API, ca.certPem);
    expect([apiAnswer.authorized, apiAnswer.body.includes(`${ns}/api`)]).toEqual([true, true]);
    expect(apiAnswer.serial).not.toBe(shopAnswer.serial);
    // A name the router holds no certificate for: the handshake is refused.
    await expect(tlsGet(ip, 'other.example.test', ca.certPem)).rejects.toThrow();

    // The user renews the certificate in their Secret: a new handshake sees it, nothing restarted.
    const tRenew = Date.now();
    const renewed = await issueServing(ca, [SHOP], { notBefore: now - DAY, notAfter: now + 90 * DAY });
    await client.replace(tlsSecret(ns, 'shop-tls', renewed));
    const after = await eventually('the renewed certificate over TLS', async () => {
      const a = await tlsGet(ip, SHOP, ca.certPem).catch(() => undefined);
      return a && a.serial !== shopAnswer.serial ? a : undefined;
    }, 45_000);
    console.log(`renewed Secret served by the router pod after ${Date.now() - tRenew} ms (test ${Date.now() - t0} ms so far)`);
    expect(after.authorized).toBe(true);
    const restarts = ((await client.get('v1', 'Pod', ns, 'router')) as KubeObject & { status?: { containerStatuses?: Array<{ restartCount: number }> } }).status?.containerStatuses?.[0]?.restartCount;
    expect(restarts).toBe(0);
    await eventually('status.domains follows the renewal', async () => ((await domainsOf('shop'))?.[0]?.certificate?.serialNumber === after.serial.toUpperCase() ? true : undefined), 30_000);
  });
});
