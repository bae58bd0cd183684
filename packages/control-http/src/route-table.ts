/**
 * A route table for control-plane servers, in place of hand-written `if (path === …)` chains.
 * Each route names its method(s), a path and a handler. A path is exact (`/v1/events`), has
 * `:name` segments (`/v1/things/:ns/:name`: each one non-empty, percent-decoded after splitting,
 * so `%2F` stays inside its segment; a malformed escape throws URIError for the server's own
 * error handling), and may end in `/*`, which takes the rest after that slash, possibly empty and
 * not decoded, as `params['*']` (`/v1/state/*` matches `/v1/state/` and `/v1/state/a/b`, not
 * `/v1/state`). The query string is ignored; a trailing slash is a different path (`/healthz/` is
 * not `/healthz`). The first route in declaration order whose path and method both match answers.
 * A matching path with no matching method is answered 405 with an `Allow` header, and a path that
 * matches nothing 404. Either answer can be replaced with the server's own, and `notFound: false`
 * answers nothing and resolves false, so a server can try its next handler. HEAD is a method of
 * its own: list it beside GET where a HEAD should answer (Node sends no body for a HEAD). The
 * table adds no tick of its own: an error a handler throws synchronously is thrown synchronously,
 * one it rejects with rejects, so call it inside the server's try/catch (`await table(req, res)`).
 * Matching is a scan of the compiled list, which costs nothing next to a control-plane request;
 * an exact path passes one shared empty `params`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { urlPath } from './request-url.ts';
import { sendJson } from './send-json.ts';

export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** The names a path pattern binds: each `:name` segment, and `*` for a trailing `/*`. */
export type RouteParamNames<P extends string> = P extends `${string}:${infer Name}/${infer Rest}`
  ? Name | RouteParamNames<`/${Rest}`>
  : P extends `${string}:${infer Name}`
    ? Name
    : P extends `${string}/*`
      ? '*'
      : never;

export type RouteParams<P extends string = string> = string extends P ? Readonly<Record<string, string | undefined>> : { readonly [K in RouteParamNames<P>]: string };

export type RouteHandler<P extends string = string> = (req: IncomingMessage, res: ServerResponse, params: RouteParams<P>) => unknown;

export interface Route<P extends string = string> {
  /** Absent = any method. */
  method?: HttpMethod | readonly HttpMethod[];
  path: P;
  handler: RouteHandler<P>;
}

export interface RouteTableOptions {
  /** Answers a path no route has (`path` as matched); `false` answers nothing (the table resolves false). Default: 404 `{error, code: 'not_found'}`. */
  notFound?: ((req: IncomingMessage, res: ServerResponse, path: string) => unknown) | false;
  /** Answers a known path asked with another method; `allow` is the `Allow` header's value ("GET, HEAD"). Default: 405 `{error, code: 'method_not_allowed'}` with `Allow`. */
  methodNotAllowed?: (req: IncomingMessage, res: ServerResponse, allow: string, path: string) => unknown;
}

/**
 * Answers one request; true when it was answered (by a route, the 404 or the 405). May throw
 * synchronously (see above). `path` is the path to match when the server has its own reading of
 * it (the store's is WHATWG URL's normalised pathname); default: `req.url` without its query.
 */
export type RouteTable = (req: IncomingMessage, res: ServerResponse, path?: string) => Promise<boolean>;

/** One piece of a pattern: a literal segment, a `:name` segment, or the trailing `*`. */
type Piece = { literal: string } | { param: string } | { rest: true };

interface Compiled {
  methods: readonly string[] | undefined;
  /** Set when the pattern is one literal path: compared as a whole. */
  exact: string | undefined;
  pieces: readonly Piece[];
  handler: RouteHandler;
}

const NO_PARAMS: RouteParams = Object.freeze({});

/**
 * Compiles `list` into one handler. `P` is inferred per route, so a handler's `params` has exactly
 * its pattern's names.
 */
export function routes<const P extends readonly string[]>(list: { readonly [I in keyof P]: Route<P[I]> }, opts: RouteTableOptions = {}): RouteTable {
  const compiled = (list as readonly Route[]).map(compile);
  const notFound = opts.notFound ?? ((req: IncomingMessage, res: ServerResponse, path: string) => sendJson(res, 404, { error: `no route for ${req.method} ${path}`, code: 'not_found' }));
  const methodNotAllowed =
    opts.methodNotAllowed ??
    ((req: IncomingMessage, res: ServerResponse, allow: string, path: string) => sendJson(res, 405, { error: `${req.method} is not allowed on ${path}: use ${allow}`, code: 'method_not_allowed' }, { allow }));

  return (req, res, path = urlPath(req.url)) => {
    const method = req.method ?? 'GET';
    let allowed: string[] | undefined;
    for (const route of compiled) {
      const params = route.exact !== undefined ? (route.exact === path ? NO_PARAMS : undefined) : match(route.pieces, path);
      if (params === undefined) continue;
      if (route.methods === undefined || route.methods.includes(method)) return answered(route.handler(req, res, params));
      allowed ??= [];
      for (const m of route.methods) if (!allowed.includes(m)) allowed.push(m);
    }
    if (allowed !== undefined) return answered(methodNotAllowed(req, res, allowed.join(', '), path));
    if (notFound === false) return Promise.resolve(false);
    return answered(notFound(req, res, path));
  };
}

/**
 * True once `result` (a handler's) has settled. Not an async function on purpose: an error a
 * handler throws synchronously reaches the caller synchronously, as it would without the table
 * (statesvc, for one, looks at how much of the request was read when it fails).
 */
function answered(result: unknown): Promise<boolean> {
  const thenable = typeof (result as PromiseLike<unknown> | undefined)?.then === 'function';
  return thenable ? Promise.resolve(result).then(() => true) : Promise.resolve(true);
}

function compile(route: Route): Compiled {
  if (!route.path.startsWith('/')) throw new Error(`route path "${route.path}" must start with /`);
  const methods = route.method === undefined ? undefined : typeof route.method === 'string' ? [route.method] : [...route.method];
  const segments = route.path.slice(1).split('/');
  const pieces = segments.map((s, i): Piece => {
    if (s === '*') {
      if (i !== segments.length - 1) throw new Error(`route path "${route.path}": * must be the last segment`);
      return { rest: true };
    }
    if (s.startsWith(':')) {
      if (s.length === 1) throw new Error(`route path "${route.path}": a : segment needs a name`);
      return { param: s.slice(1) };
    }
    return { literal: s };
  });
  const exact = pieces.every((p) => 'literal' in p) ? route.path : undefined;
  return { methods, exact, pieces, handler: route.handler };
}

/** Walks `path` segment by segment against `pieces`; the bound params, or undefined when it does not match. */
function match(pieces: readonly Piece[], path: string): RouteParams | undefined {
  const params: Record<string, string> = {};
  let at = 0; // index of the '/' that starts the next segment
  for (const piece of pieces) {
    if (path.charCodeAt(at) !== 47 /* / */) return undefined;
    if ('rest' in piece) {
      params['*'] = path.slice(at + 1);
      return params;
    }
    let end = path.indexOf('/', at + 1);
    if (end < 0) end = path.length;
    const segment = path.slice(at + 1, end);
    if ('literal' in piece) {
      if (segment !== piece.literal) return undefined;
    } else {
      if (segment === '') return undefined;
      params[piece.param] = decodeURIComponent(segment);
    }
    at = end;
  }
  return at === path.length ? params : undefined;
}
