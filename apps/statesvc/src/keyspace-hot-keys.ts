/**
 * `GET /v1/admin/hot-keys`: the hottest keys per keyspace, from the HotKeyTrackers statesvc feeds
 * with every keyed state call (one call per request, after the token and the declaration are
 * checked, so only a keyspace's own callers add to its counts). Signed like the other admin reads:
 * keys are user data.
 */
import { DNS1123_LABEL, HOT_KEYS_DEFAULT_LIMIT, HOT_KEYS_MAX_LIMIT, HotKeyTrackers, KEYSPACE_PATTERN, type StateHotKeysResponse } from '@orrery/spec';
import { HttpError } from './http-error.ts';

/** One tracker per keyspace, at most HOT_KEYS_DEFAULT_MAX_TRACKERS keyspaces (the coldest goes first). */
export function createKeyspaceHotKeys(): HotKeyTrackers {
  return new HotKeyTrackers();
}

/** The answer for the admin route's query (`scope-namespace`, `scope-keyspace`, `limit`); bad parameters are 400. */
export function hotKeysAnswer(trackers: HotKeyTrackers, params: URLSearchParams, nowMs: number): StateHotKeysResponse {
  const namespace = params.get('scope-namespace') ?? undefined;
  const keyspace = params.get('scope-keyspace') ?? undefined;
  if (namespace !== undefined && (namespace.length > 63 || !DNS1123_LABEL.test(namespace))) throw new HttpError('bad_request', 'scope-namespace must be a DNS-1123 label');
  if (keyspace !== undefined) {
    if (namespace === undefined) throw new HttpError('bad_request', 'scope-keyspace needs scope-namespace too');
    if (keyspace.length > 63 || !KEYSPACE_PATTERN.test(keyspace)) throw new HttpError('bad_request', 'scope-keyspace must be a keyspace name (lower-case letters, digits, dashes)');
  }
  const limitText = params.get('limit');
  let limit = HOT_KEYS_DEFAULT_LIMIT;
  if (limitText !== null) {
    if (!/^\d{1,2}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > HOT_KEYS_MAX_LIMIT) throw new HttpError('bad_request', `limit must be an integer from 1 to ${HOT_KEYS_MAX_LIMIT}`);
    limit = Number(limitText);
  }
  return {
    halfLifeSeconds: trackers.halfLifeMs / 1000,
    capacity: trackers.capacity,
    keyspaces: trackers.view(nowMs, limit, { namespace, name: keyspace }).map((v) => ({
      namespace: v.namespace,
      keyspace: v.name,
      rate: v.rate,
      boundRate: v.boundRate,
      keys: v.keys.map((k) => ({ key: k.key, rate: k.rate, share: k.share, rateError: k.rateError })),
    })),
  };
}
