/**
 * The admin port: `/healthz`, `/readyz`, `/metrics`, `/v1/stats` and `/v1/hot-keys`, all read-only.
 * Never on the data plane's port, so function traffic cannot reach it.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { routes, sendJson } from '@orrery/control-http';
import { hotKeysRoute } from '../hot-keys/hot-keys-route.ts';
import { keyHashOf } from '../hot-keys/hot-key-owner.ts';
import type { OwnerLookup, StickyHotKeys } from '../hot-keys/sticky-hot-keys.ts';
import type { RouterMetrics } from '../stats/metrics.ts';

export interface AdminServerOptions {
  routerId: string;
  /** Bearer token `/v1/hot-keys` wants (the operator's store token); absent = open. */
  token: string | undefined;
  metrics: RouterMetrics;
  /** The body of `/v1/stats` after `routerId`. */
  stats: () => Record<string, unknown>;
  hotKeys: StickyHotKeys;
  /** A hot key's owner endpoint and its load. */
  owner: OwnerLookup;
}

export function createAdminServer(o: AdminServerOptions): Server {
  const alive = (_req: IncomingMessage, res: ServerResponse) => sendJson(res, 200, { status: 'ok', routerId: o.routerId });
  // No methods per route: the port's rule (read-only, checked first) covers every path, unknown ones too.
  const table = routes(
    [
      { path: '/healthz', handler: alive },
      { path: '/readyz', handler: alive },
      {
        path: '/metrics',
        handler: async (_req, res) => {
          const body = await o.metrics.registry.metrics();
          res.writeHead(200, { 'content-type': o.metrics.registry.contentType });
          res.end(body);
        },
      },
      { path: '/v1/stats', handler: (_req, res) => sendJson(res, 200, { routerId: o.routerId, ...o.stats() }) },
      {
        path: '/v1/hot-keys',
        handler: (req, res) => {
          const a = hotKeysRoute(o.hotKeys, { query: (req.url ?? '').split('?')[1] ?? '', authorization: req.headers.authorization }, { routerId: o.routerId, token: o.token, owner: o.owner, hash: keyHashOf });
          sendJson(res, a.status, a.body);
        },
      },
    ],
    { notFound: (_req, res) => sendJson(res, 404, { error: 'admin paths: /healthz, /readyz, /metrics, /v1/stats, /v1/hot-keys', code: 'not_found' }) },
  );
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return sendJson(res, 405, { error: 'admin endpoints are read-only: use GET', code: 'method_not_allowed' });
    await table(req, res);
  };
  return createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err), code: 'internal' }));
    });
  });
}
