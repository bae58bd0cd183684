/**
 * What the domain reconciler (domain-reconciler.ts) reads and writes on a backend. The rules —
 * who holds a host, whether a certificate is good, each Function's status.domains — stay in the
 * reconciler; a backend says where Functions and TLS Secrets are read and where the routers'
 * certificates go (local: files under the data dir, backends/local/local-domain-backend.ts;
 * Kubernetes: informer caches and a router-owned Secret, backends/kubernetes/kube-domain-backend.ts).
 */

/** A TLS Secret's two keys as text; a key absent from the Secret is undefined. */
export interface TlsSecret {
  crt?: string;
  key?: string;
}

export interface DomainBackend {
  /** Every Function the operator sees, all namespaces (a host is claimed cluster-wide). */
  functions(): Promise<readonly unknown[]>;
  /** The Secret `name` in `namespace`; undefined when there is none (on Kubernetes: none of type kubernetes.io/tls). */
  tlsSecret(namespace: string, name: string): Promise<TlsSecret | undefined>;
  /**
   * Replaces the routers' certificates with `bundle` (host → `<chain><key>` PEM,
   * @orrery/spec router-certificates.ts): hosts not in it are removed. Called only on a change.
   */
  writeRouterCertificates(bundle: ReadonlyMap<string, string>): Promise<void>;
  /** Where the routers' certificates go, for the log. */
  readonly routerCertificatesAt: string;
  /** Calls `listener` when a TLS Secret may have changed (a pass follows); returns the unsubscribe. Absent: the periodic pass alone. */
  onSecretsChanged?(listener: () => void): () => void;
}
