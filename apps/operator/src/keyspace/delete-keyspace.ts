import { signKeyspaceDeletionUrl } from '@orrery/auth';

/** How long a signed deletion URL stays valid: long enough for one request and its retries. */
const URL_LIFETIME_SECONDS = 60;

export class KeyspaceDeletionError extends Error {}

/**
 * The keyspace cleanup of deletion policy `delete`: statesvc's signed admin call
 * `DELETE /v1/admin/keyspace`. The scope travels only in the signed query, so nothing but the
 * holder of the master key can ask. A failure throws: the Function keeps its finalizer and the
 * reconcile is retried with backoff, so data is never left half-deleted without a trace.
 */
export function createKeyspaceDeleter(o: { stateUrl: string; masterKey: Buffer; timeoutMs?: number; now?: () => number }) {
  const base = o.stateUrl.replace(/\/+$/, '');
  return async (namespace: string, keyspace: string): Promise<number> => {
    const expires = Math.floor((o.now?.() ?? Date.now()) / 1000) + URL_LIFETIME_SECONDS;
    const url = `${base}${signKeyspaceDeletionUrl(o.masterKey, namespace, keyspace, expires)}`;
    let res: Response;
    try {
      res = await fetch(url, { method: 'DELETE', signal: AbortSignal.timeout(o.timeoutMs ?? 10_000) });
    } catch (err) {
      throw new KeyspaceDeletionError(`deleting keyspace ${namespace}/${keyspace}: statesvc at ${base} did not answer: ${(err as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const body = JSON.parse(text) as { error?: string; code?: string };
        detail = `${body.code ?? 'error'}: ${body.error ?? ''}`;
      } catch {
        // not JSON: keep the raw text
      }
      throw new KeyspaceDeletionError(`deleting keyspace ${namespace}/${keyspace}: statesvc answered ${res.status} (${detail})`);
    }
    return Number((JSON.parse(text) as { deleted?: number }).deleted ?? 0);
  };
}
