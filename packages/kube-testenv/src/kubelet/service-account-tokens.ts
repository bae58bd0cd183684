import type { V1Pod, V1ServiceAccountTokenProjection } from '@kubernetes/client-node';
import type { ApiClient } from './api-client.ts';

interface CachedToken {
  token: string;
  refreshAt: number;
}

/** When the kubelet renews a token: after 80 % of its lifetime, or after 24 h, whichever comes first. */
export function tokenRefreshAt(expirationTimestamp: string, expirationSeconds: number): number {
  const ttlMs = expirationSeconds * 1000;
  const issuedAt = new Date(expirationTimestamp).getTime() - ttlMs;
  return Math.min(issuedAt + 0.8 * ttlMs, issuedAt + 24 * 3600_000);
}

interface TokenRequestWire {
  spec: { expirationSeconds: number };
  status: { token: string; expirationTimestamp: string };
}

/**
 * ServiceAccount tokens for projected volumes, from the TokenRequest API as the kubelet gets
 * them: bound to the pod (so the API server's audit log shows the pod in `user.extra` and the
 * token dies with the pod), with the volume's audience (default: the API server's) and lifetime,
 * and renewed once 80 % of the lifetime has passed (or after 24 h).
 */
export class ServiceAccountTokens {
  private readonly cache = new Map<string, CachedToken>();

  constructor(private readonly api: ApiClient) {}

  private key(pod: V1Pod, s: V1ServiceAccountTokenProjection) {
    return `${pod.metadata?.uid}|${pod.spec?.serviceAccountName ?? 'default'}|${s.audience ?? ''}|${s.expirationSeconds ?? 3600}`;
  }

  /** A token for `source`, from the cache while it is fresh. */
  async tokenFor(pod: V1Pod, s: V1ServiceAccountTokenProjection, now = Date.now()): Promise<string> {
    const key = this.key(pod, s);
    const cached = this.cache.get(key);
    if (cached && now < cached.refreshAt) return cached.token;
    const ns = pod.metadata!.namespace!;
    const sa = pod.spec?.serviceAccountName || 'default';
    const res = await this.api.request<TokenRequestWire>('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${sa}/token`, {
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenRequest',
        spec: {
          audiences: s.audience ? [s.audience] : [],
          expirationSeconds: s.expirationSeconds ?? 3600,
          boundObjectRef: { apiVersion: 'v1', kind: 'Pod', name: pod.metadata!.name, uid: pod.metadata!.uid },
        },
      },
    });
    this.cache.set(key, { token: res.status.token, refreshAt: tokenRefreshAt(res.status.expirationTimestamp, res.spec.expirationSeconds) });
    return res.status.token;
  }

  /** Whether a token of this pod is due for renewal. */
  dueForPod(podUID: string, now = Date.now()): boolean {
    for (const [k, t] of this.cache) if (k.startsWith(`${podUID}|`) && now >= t.refreshAt) return true;
    return false;
  }

  forget(podUID: string): void {
    for (const k of [...this.cache.keys()]) if (k.startsWith(`${podUID}|`)) this.cache.delete(k);
  }
}
