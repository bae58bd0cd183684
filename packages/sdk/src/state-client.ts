/**
 * Function-side client for the Orrery state API (statesvc). A thin wrapper over fetch:
 * every call is one HTTP request; scope comes from the token file the runtime writes.
 */
import { readFile } from 'node:fs/promises';

export class StateError extends Error {
  readonly code: string;
  readonly status: number;
  constructor(code: string, status: number, message: string) {
    super(message);
    this.name = 'StateError';
    this.code = code;
    this.status = status;
  }
}

export interface StateClient {
  get<T = unknown>(key: string): Promise<{ value: T; version: number } | null>;
  set(key: string, value: unknown, opts?: { ttlSeconds?: number; ifVersion?: number }): Promise<{ version: number }>;
  cas(key: string, expectVersion: number, value: unknown): Promise<{ version: number }>;
  delete(key: string, opts?: { ifVersion?: number }): Promise<boolean>;
  list(opts?: { prefix?: string; cursor?: string; limit?: number }): Promise<{ keys: string[]; cursor: string }>;
  /**
   * The same client (same URL, same token file) whose calls go through `trace`: each call
   * carries the trace headers it gives and reports how it ended. The runtime hands handlers
   * `ctx.state` bound so to the request's trace (docs/tracing.md).
   */
  withTrace(trace: StateCallTrace): StateClient;
}

export type StateOp = 'get' | 'set' | 'cas' | 'delete' | 'list';

/** One state call's part in a distributed trace (W3C trace context headers; docs/tracing.md). */
export interface StateCallTrace {
  /** A call starts: the trace context it carries and how to say it ended (the HTTP status, undefined when it failed without one). */
  start(op: StateOp): { traceparent?: string; tracestate?: string; end(status: number | undefined): void };
}

interface Credentials { namespace: string; keyspace: string; token: string }

export function createStateClient(opts: { url?: string; tokenPath?: string; fetch?: typeof fetch; trace?: StateCallTrace } = {}): StateClient {
  const base = (opts.url ?? process.env.ORRERY_STATE_URL ?? '').replace(/\/+$/, '');
  const tokenPath = opts.tokenPath ?? process.env.ORRERY_STATE_TOKEN_PATH ?? '';
  const doFetch = opts.fetch ?? fetch;
  let creds: Promise<Credentials> | undefined;

  const loadCreds = (): Promise<Credentials> =>
    (creds ??= readFile(tokenPath, 'utf8').then((t) => JSON.parse(t) as Credentials).catch((err: unknown) => {
      creds = undefined;
      throw new StateError('unauthorized', 401, `cannot read state token file ${tokenPath || '(ORRERY_STATE_TOKEN_PATH unset)'}: ${String(err)}`);
    }));

  // One request; on 401 the token file is re-read once (the runtime rewrites it on key rotation).
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}, retried = false): Promise<Response> {
    if (!base) throw new StateError('bad_request', 400, 'no state URL: set ORRERY_STATE_URL or pass {url}');
    const c = await loadCreds();
    const res = await doFetch(base + path, {
      method,
      headers: {
        authorization: `Bearer ${c.token}`,
        'x-orrery-state-namespace': c.namespace,
        'x-orrery-state-keyspace': c.keyspace,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (res.status === 401 && !retried) {
      await res.body?.cancel();
      creds = undefined;
      return call(method, path, body, headers, true);
    }
    return res;
  }

  async function fail(res: Response): Promise<never> {
    const text = await res.text();
    let code = 'internal';
    let message = text || res.statusText;
    try {
      const e = JSON.parse(text) as { error?: string; code?: string };
      code = e.code ?? code;
      message = e.error ?? message;
    } catch { /* not JSON: keep the raw text */ }
    throw new StateError(code, res.status, message);
  }

  return bindClient(call, fail, opts.trace);
}

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

/** The five calls over one transport; `trace` (optional) sees each HTTP exchange. */
function bindClient(rawCall: Call, fail: (res: Response) => Promise<never>, trace: StateCallTrace | undefined): StateClient {
  const call = (op: StateOp, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => {
    if (!trace) return rawCall(method, path, body, headers);
    const t = trace.start(op);
    // Only these two names: a trace never sets the credentials or the scope headers.
    const traced: Record<string, string> = { ...headers };
    if (t.traceparent) traced.traceparent = t.traceparent;
    if (t.tracestate) traced.tracestate = t.tracestate;
    return rawCall(method, path, body, traced).then(
      (res) => {
        t.end(res.status);
        return res;
      },
      (err: unknown) => {
        t.end(undefined);
        throw err;
      },
    );
  };
  const keyPath = (key: string) => `/v1/state/${encodeURIComponent(key)}`;
  const ifMatch = (v?: number): Record<string, string> => (v === undefined ? {} : { 'if-match': String(v) });

  return {
    async get<T>(key: string) {
      const res = await call('get', 'GET', keyPath(key));
      if (res.status === 404) { await res.body?.cancel(); return null; }
      if (!res.ok) return fail(res);
      const { value } = (await res.json()) as { value: T };
      return { value, version: Number(res.headers.get('x-orrery-state-version')) };
    },
    async set(key, value, o = {}) {
      const ttl: Record<string, string> = o.ttlSeconds === undefined ? {} : { 'x-orrery-state-ttl': String(o.ttlSeconds) };
      const res = await call('set', 'PUT', keyPath(key), value ?? null, { ...ifMatch(o.ifVersion), ...ttl });
      return res.ok ? ((await res.json()) as { version: number }) : fail(res);
    },
    async cas(key, expectVersion, value) {
      const res = await call('cas', 'POST', `${keyPath(key)}/cas`, { expectVersion, value: value ?? null });
      return res.ok ? ((await res.json()) as { version: number }) : fail(res);
    },
    async delete(key, o = {}) {
      const res = await call('delete', 'DELETE', keyPath(key), undefined, ifMatch(o.ifVersion));
      if (res.status === 404) { await res.body?.cancel(); return false; }
      if (!res.ok) return fail(res);
      await res.body?.cancel();
      return true;
    },
    async list(o = {}) {
      const q = new URLSearchParams();
      if (o.prefix) q.set('prefix', o.prefix);
      if (o.cursor) q.set('cursor', o.cursor);
      if (o.limit !== undefined) q.set('limit', String(o.limit));
      const qs = q.toString();
      const res = await call('list', 'GET', `/v1/state${qs ? `?${qs}` : ''}`);
      return res.ok ? ((await res.json()) as { keys: string[]; cursor: string }) : fail(res);
    },
    withTrace: (next) => bindClient(rawCall, fail, next),
  };
}
