/**
 * Every operator replica serves the admission webhook, so every replica must serve the same
 * certificate. Each replica runs this keeper: it reads the TLS Secret, lets the pure plan decide
 * whether a new CA or serving certificate is due, and writes one with create (first start) or a
 * replace guarded by resourceVersion (rotation) — concurrent replicas race, one write wins, the
 * others get 409 and read the winner's. Then it puts the Secret's CA bundle into the webhook
 * configurations' caBundle (idempotent, so every replica may do it) and only after that hands the
 * certificate to the webhook server: the API server trusts a new CA before anyone serves with it.
 */
import { type KubeClient, type KubeObject, isConflict, statusCode } from '../kube-client.ts';
import { secretValue } from './generated-secret.ts';
import { DEFAULT_WEBHOOK_CERT_POLICY, type WebhookCertPolicy, composeCaBundle, planWebhookCert, servingValidity } from './webhook-cert-plan.ts';
import { caFacts, issueCa, issueServing, keyMatches, servingFacts, splitPemBundle } from './webhook-certificates.ts';

type SecretObject = KubeObject & { type?: string; data?: Record<string, string> };
type WebhookConfig = KubeObject & { webhooks?: Array<{ name: string; clientConfig?: { caBundle?: string } }> };

/** Keys of the Secret: kubernetes.io/tls's pair, plus the CA bundle (current CA first) and the current CA's key. */
export const SECRET_KEYS = { cert: 'tls.crt', key: 'tls.key', caBundle: 'ca.crt', caKey: 'ca.key' } as const;

export interface WebhookCertKeeperOptions {
  client: KubeClient;
  namespace: string;
  secretName: string;
  /** The webhook Service's names the API server calls: `<svc>.<ns>.svc` (and `.cluster.local`). */
  dnsNames: string[];
  /** Names of the MutatingWebhookConfiguration and ValidatingWebhookConfiguration to keep caBundle in (the chart gives both the same name). */
  configurations: string[];
  /** The webhook server's hot reload. */
  onCertificate: (pair: { cert: string; key: string }) => void;
  /** How often the Secret is re-read (another replica may have rotated it). */
  checkIntervalMs?: number;
  policy?: WebhookCertPolicy;
  now?: () => number;
  labels?: Record<string, string>;
  log?: (msg: string) => void;
}

const b64 = (s: string) => Buffer.from(s).toString('base64');
const CONFIG_KINDS = ['MutatingWebhookConfiguration', 'ValidatingWebhookConfiguration'];

export class WebhookCertKeeper {
  private timer?: NodeJS.Timeout;
  private served = '';
  private stopped = false;
  private readonly now: () => number;
  private readonly log: (msg: string) => void;

  constructor(private readonly o: WebhookCertKeeperOptions) {
    this.now = o.now ?? Date.now;
    this.log = o.log ?? (() => {});
  }

  /** First sync (the webhook server needs a certificate to start), then periodic re-checks. */
  async start(): Promise<{ cert: string; key: string }> {
    const pair = await this.sync();
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.sync()
          .catch((err: unknown) => this.log(`webhook certificate check failed (retrying): ${(err as Error).message}`))
          .finally(() => {
            if (!this.stopped) tick();
          });
      }, this.o.checkIntervalMs ?? 30_000);
      this.timer.unref();
    };
    tick();
    return pair;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /** One round: make or rotate what is due, publish the CA bundle, hand a changed pair to the server. */
  async sync(): Promise<{ cert: string; key: string }> {
    for (let attempt = 1; ; attempt++) {
      const secret = await this.o.client.get<SecretObject>('v1', 'Secret', this.o.namespace, this.o.secretName);
      const next = await this.decide(secret);
      if (!next || next === secret) break;
      try {
        if (secret) await this.o.client.replace(next);
        else await this.o.client.create(next);
      } catch (err) {
        // Another replica wrote first: use theirs.
        if ((isConflict(err) || statusCode(err) === 409) && attempt < 5) continue;
        throw err;
      }
    }
    const secret = (await this.o.client.get<SecretObject>('v1', 'Secret', this.o.namespace, this.o.secretName))!;
    const pair = { cert: secretValue(secret, SECRET_KEYS.cert)!, key: secretValue(secret, SECRET_KEYS.key)! };
    await this.publishCaBundle(secretValue(secret, SECRET_KEYS.caBundle)!);
    if (pair.cert !== this.served) {
      this.o.onCertificate(pair);
      if (this.served) this.log('webhook serving certificate rotated');
      this.served = pair.cert;
    }
    return pair;
  }

  /** The Secret to write, or the same object when nothing is due. */
  private async decide(secret: SecretObject | undefined): Promise<SecretObject | undefined> {
    const now = this.now();
    const policy = this.o.policy ?? DEFAULT_WEBHOOK_CERT_POLICY;
    const bundle = splitPemBundle(secretValue(secret, SECRET_KEYS.caBundle));
    const caKey = secretValue(secret, SECRET_KEYS.caKey);
    const current = bundle[0] && keyMatches(bundle[0], caKey) ? caFacts(bundle[0]) : undefined;
    const serving = servingFacts(secretValue(secret, SECRET_KEYS.cert), secretValue(secret, SECRET_KEYS.key), current?.pem);
    const plan = planWebhookCert({ ca: current, serving }, now, this.o.dnsNames, policy);
    if (plan.action === 'keep') return secret;
    this.log(`webhook certificate: ${plan.action} (${plan.reason})`);
    let ca = current && caKey ? { certPem: current.pem, keyPem: caKey } : undefined;
    if (plan.action === 'new-ca' || !ca) ca = await issueCa({ notBefore: now - 60_000, notAfter: now + policy.caLifetimeMs }, `${this.o.dnsNames[0]}-ca`);
    const caNow = caFacts(ca.certPem)!;
    const earlier = bundle.map(caFacts).filter((c): c is NonNullable<typeof c> => !!c);
    const trusted = composeCaBundle(caNow, earlier, now);
    const pair = await issueServing(ca, this.o.dnsNames, servingValidity(caNow, now, policy));
    return {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: this.o.secretName,
        namespace: this.o.namespace,
        ...(secret ? { resourceVersion: secret.metadata.resourceVersion, labels: secret.metadata.labels, annotations: secret.metadata.annotations } : { labels: { ...this.o.labels, 'app.kubernetes.io/managed-by': 'orrery-operator' } }),
      },
      type: 'kubernetes.io/tls',
      data: {
        [SECRET_KEYS.cert]: b64(pair.certPem),
        [SECRET_KEYS.key]: b64(pair.keyPem),
        [SECRET_KEYS.caBundle]: b64(trusted.map((t) => t.pem).join('')),
        [SECRET_KEYS.caKey]: b64(ca.keyPem),
      },
    };
  }

  /** caBundle of every webhook of the named configurations = the Secret's bundle; a missing configuration is skipped (webhook.enabled=false, or not yet installed). */
  private async publishCaBundle(bundlePem: string): Promise<void> {
    const want = b64(bundlePem);
    for (const kind of CONFIG_KINDS) {
      for (const name of this.o.configurations) {
        await this.o.client.update<WebhookConfig>('admissionregistration.k8s.io/v1', kind, '', name, (cfg) => {
          if (!cfg.webhooks?.some((w) => w.clientConfig?.caBundle !== want)) return undefined;
          for (const w of cfg.webhooks) w.clientConfig = { ...w.clientConfig, caBundle: want };
          return cfg;
        });
      }
    }
  }
}
