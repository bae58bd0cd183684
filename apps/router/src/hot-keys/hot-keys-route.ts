/**
 * `GET /v1/hot-keys` on the admin port. Sticky keys are often session or user ids, and the admin
 * port is also open to monitoring (for /metrics): with a store token (`--store-token-file`, what
 * the operator and its admin API hold) the route wants it as `Authorization: Bearer`, compared in
 * constant time; without one (a standalone router) it is as open as /v1/stats.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { HOT_KEYS_DEFAULT_LIMIT, HOT_KEYS_MAX_LIMIT, type RouterHotKeysResponse } from '@orrery/spec';
import type { OwnerLookup, StickyHotKeys } from './sticky-hot-keys.ts';

export type HotKeysRouteAnswer = { status: 200; body: RouterHotKeysResponse } | { status: 400 | 401; body: { error: string; code: string } };

const digest = (s: string): Buffer => createHash('sha256').update(s).digest();

/** Whether `authorization` is `Bearer <token>`, in time independent of where they differ. */
export function bearerMatches(authorization: string | string[] | undefined, token: string): boolean {
  if (typeof authorization !== 'string' || !authorization.startsWith('Bearer ')) return false;
  return timingSafeEqual(digest(authorization.slice(7)), digest(token));
}

const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export function hotKeysRoute(
  hotKeys: StickyHotKeys,
  req: { query: string; authorization: string | string[] | undefined },
  ctx: { routerId: string; token?: string; owner: OwnerLookup; hash: (key: string) => { hi: number; lo: number } },
): HotKeysRouteAnswer {
  if (ctx.token !== undefined && !bearerMatches(req.authorization, ctx.token)) {
    return { status: 401, body: { error: "send the store token as 'Authorization: Bearer <token>' (the router's --store-token-file)", code: 'unauthorized' } };
  }
  const params = new URLSearchParams(req.query);
  const namespace = params.get('namespace') ?? undefined;
  const fn = params.get('function') ?? undefined;
  for (const [what, v] of [['namespace', namespace], ['function', fn]] as const) {
    if (v !== undefined && (v.length > 63 || !NAME.test(v))) return { status: 400, body: { error: `${what} must be a DNS-1123 label`, code: 'bad_request' } };
  }
  const limitText = params.get('limit');
  let limit = HOT_KEYS_DEFAULT_LIMIT;
  if (limitText !== null) {
    if (!/^\d{1,2}$/.test(limitText) || Number(limitText) < 1 || Number(limitText) > HOT_KEYS_MAX_LIMIT) return { status: 400, body: { error: `limit must be an integer from 1 to ${HOT_KEYS_MAX_LIMIT}`, code: 'bad_request' } };
    limit = Number(limitText);
  }
  return {
    status: 200,
    body: {
      routerId: ctx.routerId,
      halfLifeSeconds: hotKeys.trackers.halfLifeMs / 1000,
      capacity: hotKeys.trackers.capacity,
      functions: hotKeys.view(ctx.owner, ctx.hash, { namespace, function: fn, limit }),
    },
  };
}
