/**
 * Custom domains on Kubernetes (domain/domain-backend.ts): Functions from the informer cache, TLS
 * Secrets from an informer over Secrets of type kubernetes.io/tls only (the operator already may
 * read Secrets; the routers may not, docs/security.md), and the routers' certificates as one
 * router-owned Secret (`--router-certs-secret`, in the operator's namespace) that the chart mounts
 * into the router pods: one key `<host>.pem` per host, written by server-side apply, so a host
 * that leaves the bundle leaves the Secret. The kubelet swaps a mounted Secret's files atomically
 * (`..data`), and the routers reload on that swap (apps/router/src/tls/certificate-folder.ts).
 */
import { routerCertificateFile } from '@orrery/spec';
import type { DomainBackend, TlsSecret } from '../../domain/domain-backend.ts';
import type { Informer } from './informer.ts';
import type { KubeClient } from './kube-client.ts';
import { MANAGED_BY } from './render/labels.ts';

/** Only these reach the informer: a user's TLS certificates, not every Secret of the cluster. */
export const TLS_SECRET_SELECTOR = 'type=kubernetes.io/tls';

export interface KubeDomainBackendOptions {
  client: KubeClient;
  functions: Informer;
  /** Informer over Secrets with fieldSelector TLS_SECRET_SELECTOR. */
  secrets: Informer;
  /** The router-owned Secret; absent = certificates are checked and reported but handed to no router. */
  routerSecret?: { namespace: string; name: string };
}

const decode = (v: unknown): string | undefined => (typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : undefined);

export class KubeDomainBackend implements DomainBackend {
  readonly routerCertificatesAt: string;

  constructor(private readonly o: KubeDomainBackendOptions) {
    this.routerCertificatesAt = o.routerSecret ? `Secret ${o.routerSecret.namespace}/${o.routerSecret.name}` : 'no router (--router-certs-secret not set)';
  }

  async functions(): Promise<readonly unknown[]> {
    return this.o.functions.list();
  }

  async tlsSecret(namespace: string, name: string): Promise<TlsSecret | undefined> {
    const s = this.o.secrets.get(namespace, name);
    if (!s) return undefined;
    const data: Record<string, unknown> = (s as { data?: Record<string, unknown> }).data ?? {};
    const crt = decode(data['tls.crt']);
    const key = decode(data['tls.key']);
    return { ...(crt !== undefined ? { crt } : {}), ...(key !== undefined ? { key } : {}) };
  }

  async writeRouterCertificates(bundle: ReadonlyMap<string, string>): Promise<void> {
    const target = this.o.routerSecret;
    if (!target) return;
    const data: Record<string, string> = {};
    for (const [host, pem] of bundle) data[routerCertificateFile(host)] = Buffer.from(pem, 'utf8').toString('base64');
    await this.o.client.apply({
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: { name: target.name, namespace: target.namespace, labels: { ...MANAGED_BY, 'app.kubernetes.io/component': 'router-certificates' } },
      type: 'Opaque',
      data,
    });
  }

  onSecretsChanged(listener: () => void): () => void {
    this.o.secrets.on(() => listener());
    // The informer stops with its operator term; nothing to unsubscribe beyond that.
    return () => {};
  }
}
