import type { Resource } from '@orrery/spec';
import { createHttpStore } from '@orrery/store';
import { lazyKubeStore } from '../kubernetes/lazy-kube-store.ts';
import { applyOutcome } from '../resources/apply-outcome.ts';
import { type CliStore, createApiStore } from './api-store.ts';
import type { Connection } from './resolve-connection.ts';

/**
 * The Kubernetes API server when the connection says so (kube-target.ts), else the admin API
 * when a token is known and no store URL was forced, else the store directly. `where` names
 * the endpoint for error messages.
 */
export function openStore(conn: Connection): { store: CliStore; where: string; via: 'api' | 'store' | 'kubernetes' } {
  if (conn.kube) return { store: lazyKubeStore(conn.kube), where: conn.kube.kubeconfig ?? (conn.kube.inCluster ? 'in-cluster' : '$KUBECONFIG'), via: 'kubernetes' };
  if (conn.apiToken && !conn.directStore) return { store: createApiStore(conn.apiUrl, conn.apiToken), where: `${conn.apiUrl}/trpc`, via: 'api' };
  return { store: directStore(conn.storeUrl, conn.storeToken), where: conn.storeUrl, via: 'store' };
}

/** The store's HTTP API has no outcome in its answer: read the object first to tell created from configured. */
function directStore(url: string, token: string | undefined): CliStore {
  const store = createHttpStore(url, { token });
  return {
    get: (kind, namespace, name) => store.get(kind, namespace, name),
    list: (kind, opts) => store.list(kind, opts),
    async apply(obj, opts) {
      const m = obj as Resource;
      const before = await store.get(m.kind, m.metadata.namespace ?? 'default', m.metadata.name);
      const object = await store.apply(obj, opts?.force ? { force: true } : {});
      return { object, outcome: applyOutcome(before, object) };
    },
    delete: (kind, namespace, name) => store.delete(kind, namespace, name),
    close: () => store.close(),
  };
}
