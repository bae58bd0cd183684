import type { LocalBackend } from '../local-backend.ts';

/**
 * A local backend that starts no worker and observes none: for tests of the Function reconcile
 * (revisions, keyspaces, collection), where workers would only cost time.
 */
export function workerlessBackend(): LocalBackend {
  return { scale: async () => {}, observe: () => ({ desired: 0, actual: 0, ready: 0, restarts: 0 }), revisionKeys: () => [] } as unknown as LocalBackend;
}
