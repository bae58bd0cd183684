import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { ORRERY_AUTHORIZATION_HEADER } from '../auth/bearer-credential.ts';
import { LoginRateLimiter, type LoginRateLimitOptions } from '../auth/login-rate-limit.ts';
import type { ApiServices } from '../context.ts';
import { resolveContext } from '../resolve-context.ts';
import { appRouter } from '../routers/_app.ts';
import { batchCallCount, MAX_BATCH_SIZE } from './batch-size.ts';
import { forwardedFacts } from './forwarded-request.ts';
import { isJsonRequest } from './json-content-type.ts';
import { refusalBody } from './refusal-body.ts';
import { crossOriginRefusal } from './same-origin-request.ts';
import { parseTrustedProxies, type TrustedProxies } from './trusted-proxies.ts';

export interface ApiHandlerOptions {
  /** URL prefix of the API (default `/trpc/`, with the trailing slash). */
  basePath?: string;
  /** Largest request body accepted (default 1 MiB); bigger → 413. */
  maxBodyBytes?: number;
  /**
   * Peers whose `X-Forwarded-Proto` / `X-Forwarded-For` / `X-Forwarded-Host` are believed (a TLS
   * ingress, the console): addresses, CIDRs or `loopback`, as a list or comma-separated. Default
   * none: the cookie's Secure flag then follows this connection's own TLS, the client address
   * is the peer's.
   */
  trustedProxies?: string | readonly string[] | TrustedProxies;
  /** Calls per tRPC batch (default 16); a bigger batch → 400 `batch_too_large`. */
  maxBatchSize?: number;
  /** Failed-login limits (defaults in login-rate-limit.ts), used when the services bring no limiter. */
  loginRateLimit?: Partial<LoginRateLimitOptions>;
  /** Origins besides the request's own host that may POST (e.g. a public URL behind a proxy). */
  allowedOrigins?: readonly string[];
}

/** Services per request: a constant for a single process, or a factory (e.g. per tenant). */
export type ApiContextFactory = (req: IncomingMessage) => ApiServices | Promise<ApiServices>;

const header = (req: IncomingMessage, name: string): string | undefined => {
  const v = req.headers[name];
  return Array.isArray(v) ? v.join(', ') : v;
};

function refuse(res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
}

/**
 * The tRPC API as a node:http request listener (standalone adapter). Requests outside `basePath`
 * answer 404 JSON so the listener can sit behind a router of its own. Before tRPC: a POST from
 * another origin → 403, a body that is not JSON → 415, a batch over `maxBatchSize` → 400.
 */
export function createApiHandler(ctxFactory: ApiContextFactory, opts: ApiHandlerOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  const basePath = opts.basePath ?? '/trpc/';
  const maxBatchSize = opts.maxBatchSize ?? MAX_BATCH_SIZE;
  const trusted = typeof opts.trustedProxies === 'object' && 'has' in opts.trustedProxies ? opts.trustedProxies : parseTrustedProxies(opts.trustedProxies);
  const limiter = new LoginRateLimiter(opts.loginRateLimit);
  const factsOf = (req: IncomingMessage) =>
    forwardedFacts(
      {
        peer: req.socket.remoteAddress,
        encrypted: (req.socket as TLSSocket).encrypted === true,
        xForwardedFor: header(req, 'x-forwarded-for'),
        xForwardedProto: header(req, 'x-forwarded-proto'),
        xForwardedHost: header(req, 'x-forwarded-host'),
        host: header(req, 'host'),
      },
      trusted,
    );
  // Set-Cookie values and other headers collected by a procedure, keyed by the context createContext returned.
  const jars = new WeakMap<object, { cookies: string[]; headers: Record<string, string> }>();
  const handler = createHTTPHandler({
    router: appRouter,
    basePath,
    maxBodySize: opts.maxBodyBytes ?? 1024 * 1024,
    maxBatchSize,
    async createContext({ req }) {
      const services = await ctxFactory(req);
      const facts = factsOf(req);
      const jar = { cookies: [] as string[], headers: {} as Record<string, string> };
      const ctx = await resolveContext(
        { ...services, loginLimiter: services.loginLimiter ?? limiter },
        { cookie: req.headers.cookie, authorization: req.headers.authorization, orreryAuthorization: header(req, ORRERY_AUTHORIZATION_HEADER), secure: facts.secure, clientAddress: facts.clientAddress },
        (v) => jar.cookies.push(v),
        (name, value) => (jar.headers[name.toLowerCase()] = value),
      );
      jars.set(ctx, jar);
      return ctx;
    },
    responseMeta({ ctx }) {
      const jar = ctx ? jars.get(ctx) : undefined;
      const headers: Record<string, string | string[]> = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...jar?.headers };
      if (jar?.cookies.length) headers['set-cookie'] = jar.cookies;
      return { headers };
    },
  });
  return (req, res) => {
    const url = req.url ?? '/';
    const path = url.split('?')[0]!;
    if (!path.startsWith(basePath)) {
      refuse(res, 404, JSON.stringify({ error: { code: 'NOT_FOUND', message: `the admin API lives under ${basePath}` } }));
      return;
    }
    const method = req.method ?? 'GET';
    const facts = factsOf(req);
    const crossOrigin = crossOriginRefusal({ method, origin: header(req, 'origin'), secFetchSite: header(req, 'sec-fetch-site'), host: facts.host, allowedOrigins: opts.allowedOrigins });
    if (crossOrigin) {
      refuse(res, 403, refusalBody('FORBIDDEN', 403, 'cross_origin', `${crossOrigin}: the admin API takes changes only from its own origin`));
      return;
    }
    if (!isJsonRequest(method, header(req, 'content-type'))) {
      refuse(res, 415, refusalBody('UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'procedures take application/json bodies only'));
      return;
    }
    const calls = batchCallCount(url, basePath);
    if (calls > maxBatchSize) {
      refuse(res, 400, refusalBody('BAD_REQUEST', 400, 'batch_too_large', `a batch may hold at most ${maxBatchSize} calls; this one holds ${calls}`, { maxBatchSize }));
      return;
    }
    void handler(req, res);
  };
}
