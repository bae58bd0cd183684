/**
 * The Kubernetes store, loaded on its first call: @kubernetes/client-node takes most of a
 * second to import, which `orrery get` against the local platform should not pay.
 */
import type { CliStore } from '../connection/api-store.ts';
import type { KubeTarget } from './kube-target.ts';

export function lazyKubeStore(target: KubeTarget): CliStore {
  let store: Promise<CliStore> | undefined;
  const load = () => (store ??= import('./kube-store.ts').then((m) => m.createKubeStore(target)));
  return {
    get: async (...a) => (await load()).get(...a),
    list: async (...a) => (await load()).list(...a),
    apply: async (...a) => (await load()).apply(...a),
    delete: async (...a) => (await load()).delete(...a),
    codeSource: async (...a) => (await load()).codeSource!(...a),
    putPackage: async (...a) => (await load()).putPackage!(...a),
    events: async (...a) => (await load()).events!(...a),
    workerLogLines: async (...a) => (await load()).workerLogLines!(...a),
    close: async () => (store ? (await store).close() : undefined),
  };
}
