import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import type { ApiServices } from '../context.ts';
import { resolveContext } from '../resolve-context.ts';
import { appRouter } from '../routers/_app.ts';

export interface ApiHandlerOptions {
  /** URL prefix of the API (default `/trpc/`, with the trailing slash). */
  basePath?: string;
  /** Largest request body accepted (default 1 MiB); bigger → 413. */
  maxBodyBytes?: number;
  /** Trust `X-Forwarded-Proto: https` from a TLS-terminating proxy for the cookie's Secure flag. */
  trustForwardedProto?: boolean;
}

/** Services per request: a constant for a single process, or a factory (e.g. per tenant). */
export type ApiContextFactory = (req: IncomingMessage) => ApiServices | Promise<ApiServices>;

/**
 * The tRPC API as a node:http request listener (standalone adapter). Requests outside `basePath`
 * answer 404 JSON so the listener can sit behind a router of its own.
 */
export function createApiHandler(ctxFactory: ApiContextFactory, opts: ApiHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const basePath = opts.basePath ?? '/trpc/';
  // Set-Cookie values collected by a procedure, keyed by the context createContext returned.
  const jars = new WeakMap<object, string[]>();
  const handler = createHTTPHandler({
    router: appRouter,
    basePath,
    maxBodySize: opts.maxBodyBytes ?? 1024 * 1024,
    async createContext({ req }) {
      const services = await ctxFactory(req);
      const encrypted = (req.socket as TLSSocket).encrypted === true;
      const forwarded = opts.trustForwardedProto === true && req.headers['x-forwarded-proto'] === 'https';
      const jar: string[] = [];
      const ctx = await resolveContext(services, { cookie: req.headers.cookie, authorization: req.headers.authorization, secure: encrypted || forwarded }, (v) => jar.push(v));
      jars.set(ctx, jar);
      return ctx;
    },
    responseMeta({ ctx }) {
      const jar = ctx ? (jars.get(ctx) ?? []) : [];
      return { headers: jar.length ? { 'set-cookie': jar, 'cache-control': 'no-store' } : { 'cache-control': 'no-store' } };
    },
  });
  return (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (!path.startsWith(basePath)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 'NOT_FOUND', message: `the admin API lives under ${basePath}` } }));
      return;
    }
    void handler(req, res);
  };
}
