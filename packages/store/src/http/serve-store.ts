import type { IncomingMessage, ServerResponse } from 'node:http';
import { timingSafeEqual } from 'node:crypto';
import { JsonBodyError, readJsonBody, sendJson as send } from '@orrery/control-http';
import { isResourceKind } from '@orrery/spec';
import { type ResourceStore, StoreError } from '../types.ts';
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

  return async function handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
    const url = new URL(req.url ?? '/', 'http://store');
    if (!url.pathname.startsWith(STORE_PREFIX)) return false;
    try {
      if (!authorized(req)) throw Object.assign(new Error('missing or wrong bearer token for the store API'), { status: 401, code: 'unauthorized' });
      const parts = url.pathname.slice(STORE_PREFIX.length).split('/').map(decodeURIComponent);
      if (req.method === 'POST' && parts.length === 1 && parts[0] === 'apply') {
        const body = await readJson(req);
        const rv = req.headers['if-match'];
        const force = url.searchParams.get('force') === 'true';
        send(res, 200, await store.apply(body, { ...(typeof rv === 'string' ? { resourceVersion: rv } : {}), ...(force ? { force } : {}) }));
        return true;
      }
      const [kind, a, b, c] = parts;
      if (!kind || !isResourceKind(kind)) throw new StoreError('not_found', `unknown kind "${kind ?? ''}" in ${url.pathname}`);
      if (req.method === 'GET' && parts.length === 1) {
        const labels = Object.fromEntries(url.searchParams.getAll('label').map((l) => l.split('=', 2) as [string, string]));
        send(res, 200, await store.list(kind, { namespace: url.searchParams.get('namespace') ?? undefined, labels: Object.keys(labels).length ? labels : undefined }));
        return true;
      }
      if (req.method === 'GET' && parts.length === 2 && a === 'watch') {
        serveWatch(store, kind, url, req, res);
        return true;
      }
      if (parts.length === 3 && a && b) {
        if (req.method === 'GET') {
          const obj = await store.get(kind, a, b);
          if (!obj) throw new StoreError('not_found', `${kind} ${a}/${b} not found`);
          send(res, 200, obj);
          return true;
        }
        if (req.method === 'DELETE') {
          const rv = req.headers['if-match'];
          send(res, 200, { deleted: await store.delete(kind, a, b, typeof rv === 'string' ? { resourceVersion: rv } : {}) });
          return true;
        }
      }
      if (parts.length === 4 && a && b && c === 'status' && req.method === 'PUT') {
        const rv = req.headers['if-match'];
        send(res, 200, await store.updateStatus(kind, a, b, await readJson(req), typeof rv === 'string' ? { resourceVersion: rv } : {}));
        return true;
      }
      throw Object.assign(new Error(`no store route for ${req.method} ${url.pathname}`), { status: 404, code: 'not_found' });
    } catch (err) {
      if (!res.headersSent) {
        const e = err as { status?: number; code?: string; message?: string; details?: unknown };
        const status = err instanceof StoreError ? err.status : (e.status ?? 500);
        send(res, status, { error: status === 500 ? 'internal error' : e.message, code: e.code ?? 'internal', details: e.details });
      } else res.destroy();
      return true;
    }
  };
}

function serveWatch(store: ResourceStore, kind: Parameters<ResourceStore['watch']>[0], url: URL, req: IncomingMessage, res: ServerResponse) {
  const since = url.searchParams.get('sinceResourceVersion');
  res.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
  res.flushHeaders();
  const w = store.watch(
    kind,
    { namespace: url.searchParams.get('namespace') ?? undefined, sinceResourceVersion: since ? Number(since) : undefined },
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
