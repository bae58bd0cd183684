/**
 * WebhookCertKeeper on the real API server, two replicas with a fake clock: the first start makes
 * the Secret once and both serve its certificate; caBundle of both webhook configurations is the
 * Secret's CA; the serving certificate is reissued at 80 % (same CA, bundle unchanged) and the
 * other replica picks it up; a CA rotation keeps the old CA in the bundle; two replicas rotating
 * at the same moment end with one certificate (the loser's replace is a real 409). The API server
 * calling the webhook with this certificate is helm-install-defaults.kube.test.ts.
 */
import { X509Certificate } from 'node:crypto';
import { adminKubeConfig, auditEvents, createNamespace } from '@orrery/kube-testenv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient, type KubeObject } from '../kube-client.ts';
import { secretValue } from './generated-secret.ts';
import { SECRET_KEYS, WebhookCertKeeper } from './webhook-cert-keeper.ts';
import { splitPemBundle } from './webhook-certificates.ts';

const DAY = 86_400_000;
let client: KubeClient;
let NS: string;
let dispose: () => Promise<void>;
let CONFIG: string;

type WebhookConfig = KubeObject & { webhooks: Array<{ clientConfig: { caBundle?: string } }> };
const webhook = (name: string) => ({
  name,
  admissionReviewVersions: ['v1'],
  sideEffects: 'None',
  // Never called: matches no object (the label is set nowhere) and ignores failures.
  failurePolicy: 'Ignore',
  objectSelector: { matchLabels: { 'orrery.dev/never': 'set' } },
  clientConfig: { service: { name: 'orrery-webhook', namespace: NS, path: '/validate', port: 443 } },
  rules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['configmaps'], scope: 'Namespaced' }],
});

beforeAll(async () => {
  client = new KubeClient(adminKubeConfig());
  ({ name: NS, dispose } = await createNamespace('webhook-cert'));
  CONFIG = `${NS}-webhook`;
  await client.create({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'ValidatingWebhookConfiguration', metadata: { name: CONFIG }, webhooks: [webhook('validate.test.orrery.dev')] } as never);
  await client.create({ apiVersion: 'admissionregistration.k8s.io/v1', kind: 'MutatingWebhookConfiguration', metadata: { name: CONFIG }, webhooks: [webhook('defaults.test.orrery.dev')] } as never);
});
afterAll(async () => {
  await client.delete('admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration', '', CONFIG);
  await client.delete('admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration', '', CONFIG);
  await dispose();
});

function replica(clock: { now: number }) {
  const served: string[] = [];
  const keeper = new WebhookCertKeeper({
    client,
    namespace: NS,
    secretName: 'orrery-webhook-tls',
    dnsNames: [`orrery-webhook.${NS}.svc`, `orrery-webhook.${NS}.svc.cluster.local`],
    configurations: [CONFIG],
    onCertificate: (pair) => served.push(pair.cert),
    now: () => clock.now,
  });
  return { keeper, served };
}
const secret = () => client.get<KubeObject & { data: Record<string, string> }>('v1', 'Secret', NS, 'orrery-webhook-tls');
const bundles = async () =>
  Promise.all(['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'].map(async (k) => (await client.get<WebhookConfig>('admissionregistration.k8s.io/v1', k, '', CONFIG))!.webhooks[0]!.clientConfig.caBundle));
const cert = (pem: string) => new X509Certificate(pem);

describe('the operator’s webhook certificate', () => {
  const clock = { now: Date.now() };
  let a: ReturnType<typeof replica>;
  let b: ReturnType<typeof replica>;
  beforeAll(() => {
    a = replica(clock);
    b = replica(clock);
  });

  it('first start: both replicas serve one certificate from one Secret, and both configurations trust its CA', async () => {
    const [pa, pb] = await Promise.all([a.keeper.sync(), b.keeper.sync()]);
    expect(pa.cert).toBe(pb.cert);
    const s = (await secret())!;
    expect(s.type).toBe('kubernetes.io/tls');
    expect(secretValue(s, SECRET_KEYS.cert)).toBe(pa.cert);
    const caPem = secretValue(s, SECRET_KEYS.caBundle)!;
    expect(splitPemBundle(caPem)).toHaveLength(1);
    expect(cert(pa.cert).subjectAltName).toBe(`DNS:orrery-webhook.${NS}.svc, DNS:orrery-webhook.${NS}.svc.cluster.local`);
    expect(cert(pa.cert).verify(cert(caPem).publicKey)).toBe(true);
    expect(await bundles()).toEqual([Buffer.from(caPem).toString('base64'), Buffer.from(caPem).toString('base64')]);
    const creates = auditEvents((e) => e.objectRef?.namespace === NS && e.objectRef.resource === 'secrets' && e.verb === 'create' && e.responseStatus?.code === 201);
    expect(creates).toHaveLength(1);
  });

  it('a later check with nothing due writes nothing', async () => {
    const before = (await secret())!.metadata.resourceVersion;
    clock.now += 30 * DAY;
    await a.keeper.sync();
    expect((await secret())!.metadata.resourceVersion).toBe(before);
  });

  it('at 80 % of the year the serving certificate is reissued by the same CA; the other replica serves it on its next check', async () => {
    const old = (await secret())!;
    const caBefore = secretValue(old, SECRET_KEYS.caBundle);
    const bundleBefore = await bundles();
    clock.now += 0.8 * 365 * DAY - 30 * DAY + DAY;
    const fresh = await a.keeper.sync();
    expect(fresh.cert).not.toBe(secretValue(old, SECRET_KEYS.cert));
    expect(secretValue((await secret()), SECRET_KEYS.caBundle)).toBe(caBefore);
    expect(await bundles()).toEqual(bundleBefore);
    await b.keeper.sync();
    expect(b.served.at(-1)).toBe(fresh.cert);
    expect(a.served.at(-1)).toBe(fresh.cert);
  });

  it('two replicas rotating the CA at the same moment: one write wins (a real 409 for the other), the old CA stays trusted, both serve the winner’s certificate', async () => {
    const oldCa = secretValue((await secret()), SECRET_KEYS.caBundle)!;
    clock.now += 4 * 365 * DAY; // past 80 % of the CA's five years, before it expires
    const [pa, pb] = await Promise.all([a.keeper.sync(), b.keeper.sync()]);
    expect(pa.cert).toBe(pb.cert);
    const s = (await secret())!;
    const bundle = splitPemBundle(secretValue(s, SECRET_KEYS.caBundle));
    expect(bundle).toHaveLength(2);
    expect(bundle[1]).toBe(splitPemBundle(oldCa)[0]);
    expect(cert(pa.cert).verify(cert(bundle[0]!).publicKey)).toBe(true);
    expect(await bundles()).toEqual([Buffer.from(secretValue(s, SECRET_KEYS.caBundle)!).toString('base64'), Buffer.from(secretValue(s, SECRET_KEYS.caBundle)!).toString('base64')]);
    const updates = auditEvents((e) => e.objectRef?.namespace === NS && e.objectRef.resource === 'secrets' && e.objectRef.name === 'orrery-webhook-tls' && e.verb === 'update');
    expect(updates.filter((e) => e.responseStatus?.code === 409).length).toBeGreaterThanOrEqual(1);
    expect(a.served.at(-1)).toBe(b.served.at(-1));
  });

  it('once the old CA has expired it leaves the bundle at the next rotation', async () => {
    clock.now += 2 * 365 * DAY;
    await a.keeper.sync();
    expect(splitPemBundle(secretValue((await secret()), SECRET_KEYS.caBundle))).toHaveLength(1);
  });
});
