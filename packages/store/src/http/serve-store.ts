import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { JsonBodyError, readJsonBody, routes, sendJson as send } from '@orrery/control-http';
import { isResourceKind } from '@orrery/spec';
import { type ResourceStore, StoreError } from '../types.ts';
import { parseLabelParams } from './label-params.ts';
import { MAX_BODY_BYTES, STORE_PREFIX, WATCH_KEEPALIVE_MS } from './routes.ts';

export interface ServeStoreOptions {
  /** Bearer token every request must carry; absent = loopback-only callers are trusted. */
  token?: string;
}

/**
 * A request handler for the store's HTTP surface (see routes.ts). Returns false when the path is
 * not the store's, so the owner can mount it beside its own routes.
 */
export function createStoreHandler(store: ResourceStore, opts: ServeStoreOptions = {}) {
  const expected = opts.token ? Buffer.from(opts.token) : undefined;

  function authorized(req: IncomingMessage): boolean {
    if (!expected) return isLoopback(req.socket.remoteAddress);
    const header = req.headers.authorization ?? '';
    const given = Buffer.from(header.startsWith('Bearer ') ? header.slice(7) : '');
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  const ifMatch = (req: IncomingMessage) => {
    const rv = req.headers['if-match'];
    return typeof rv === 'string' ? { resourceVersion: rv } : {};
  };

  // A path under the prefix that no route takes, whatever its method, is a 404: first for a kind
  // that does not exist, then for the route. Every segment is decoded first, as a route's are.
  const noRoute = (req: IncomingMessage) => {
    const pathname = pathnameOf(req);
    const [kind] = pathname.slice(STORE_PREFIX.length).split('/').map(decodeURIComponent);
    if (!kind || !isResourceKind(kind)) throw new StoreError('not_found', `unknown kind "${kind ?? ''}" in ${pathname}`);
    throw Object.assign(new Error(`no store route for ${req.method} ${pathname}`), { status: 404, code: 'not_found' });
  };

  /** The route's kind, or the store's 404 for one that does not exist. */
  const kindOf = (req: IncomingMessage, kind: string) => {
    if (!isResourceKind(kind)) throw new StoreError('not_found', `unknown kind "${kind}" in ${pathnameOf(req)}`);
    return kind;
  };

  const table = routes(
    [
      {
        method: 'POST',
        path: `${STORE_PREFIX}apply`,
        handler: async (req, res) => {
          const body = await readJson(req);
          const force = searchOf(req).get('force') === 'true';
          send(res, 200, await store.apply(body, { ...ifMatch(req), ...(force ? { force } : {}) }));
        },
      },
      {
        method: 'GET',
        path: `${STORE_PREFIX}:kind`,
        handler: async (req, res, p) => {
          const kind = kindOf(req, p.kind);
          const search = searchOf(req);
          send(res, 200, await store.list(kind, { namespace: search.get('namespace') ?? undefined, labels: parseLabelParams(search.getAll('label')) }));
        },
      },
      { method: 'GET', path: `${STORE_PREFIX}:kind/watch`, handler: (req, res, p) => serveWatch(store, kindOf(req, p.kind), searchOf(req), req, res) },
      {
        method: 'GET',
        path: `${STORE_PREFIX}:kind/:namespace/:name`,
        handler: async (req, res, p) => {
          const kind = kindOf(req, p.kind);
          const obj = await store.get(kind, p.namespace, p.name);
          if (!obj) throw new StoreError('not_found', `${kind} ${p.namespace}/${p.name} not found`);
          send(res, 200, obj);
        },
      },
      {
        method: 'DELETE',
        path: `${STORE_PREFIX}:kind/:namespace/:name`,
        handler: async (req, res, p) => send(res, 200, { deleted: await store.delete(kindOf(req, p.kind), p.namespace, p.name, ifMatch(req)) }),
      },
      {
        method: 'PUT',
        path: `${STORE_PREFIX}:kind/:namespace/:name/status`,
        handler: async (req, res, p) => send(res, 200, await store.updateStatus(kindOf(req, p.kind), p.namespace, p.name, await readJson(req), ifMatch(req))),
      },
    ],
    { notFound: noRoute, methodNotAllowed: noRoute },
  );

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const pathname = pathnameOf(req);
    if (!pathname.startsWith(STORE_PREFIX)) return false;
    try {
      if (!authorized(req)) throw Object.assign(new Error('missing or wrong bearer token for the store API'), { status: 401, code: 'unauthorized' });
      // Routed on URL's pathname, as the store always was ("." and ".." segments resolved).
      await table(req, res, pathname);
    } catch (err) {
      if (!res.headersSent) {
        const e = err as { status?: number; code?: string; message?: string; details?: unknown };
        const status = err instanceof StoreError ? err.status : (e.status ?? 500);
        send(res, status, { error: status === 500 ? 'internal error' : e.message, code: e.code ?? 'internal', details: e.details });
      } else res.destroy();
    }
    return true;
  };
}

/** The request's URL path as the store names it in its errors (normalised by URL). */
function pathnameOf(req: IncomingMessage): string {
  return new URL(req.url ?? '/', 'http://store').pathname;
}

function searchOf(req: IncomingMessage): URLSearchParams {
  return new URL(req.url ?? '/', 'http://store').searchParams;
}

function serveWatch(store: ResourceStore, kind: Parameters<ResourceStore['watch']>[0], search: URLSearchParams, req: IncomingMessage, res: ServerResponse) {
  const since = search.get('sinceResourceVersion');
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  res.flushHeaders();
  const w = store.watch(
    kind,
    { namespace: search.get('namespace') ?? undefined, sinceResourceVersion: since ? Number(since) : undefined },
    (e) => res.write(`${JSON.stringify(e)}\n`),
  );
  const keepalive = setInterval(() => res.write('\n'), WATCH_KEEPALIVE_MS);
  w.done.then(
    () => res.end(),
    (err: unknown) => {
      const se = err as StoreError;
      res.end(`${JSON.stringify({ type: 'error', code: se.code ?? 'internal', error: se.message })}\n`);
    },
  ).finally(() => clearInterval(keepalive));
  req.on('close', () => w.close());
}

/** A store request's JSON body; refusals carry the store's error codes (`too_large`, `bad_request`). */
async function readJson(req: IncomingMessage): Promise<unknown> {
  try {
    return await readJsonBody(req, { limit: MAX_BODY_BYTES });
  } catch (err) {
    if (!(err instanceof JsonBodyError)) throw err;
    throw Object.assign(new Error(err.message), { status: err.status, code: err.problem === 'too_large' ? 'too_large' : 'bad_request' });
  }
}


function isLoopback(addr: string | undefined): boolean {
  return !!addr && (addr === '::1' || addr.startsWith('127.') || addr.startsWith('::ffff:127.'));
}
