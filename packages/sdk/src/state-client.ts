/**
 * Function-side client for the Orrery state API (statesvc). A thin wrapper over fetch: every
 * call is one HTTP request, except that a write whose answer is lost (the connection fails, or
 * 502/503/504) is sent again with the same `Idempotency-Key`, so it is applied once. Scope comes
 * from the token file the runtime writes.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { followChanges, type ChangesOptions, type StateChange } from './state-changes.ts';
import { StateError } from './state-error.ts';

export { StateError };

/**
 * Every write may name itself: statesvc stores the outcome under this key (in its keyspace, for
 * the keyspace's `idempotencyRetention`, default 24 h) and answers a repeat of the same request
 * with it instead of writing again. Without one the client makes one per call (a random UUID).
 * Pass your own to make a write idempotent across processes (e.g. the id of the message that
 * caused it); reusing one for a different request is a 422 `idempotency_mismatch`.
 */
export interface WriteOptions {
  idempotencyKey?: string;
}

export interface StateClient {
  get<T = unknown>(key: string): Promise<{ value: T; version: number } | null>;
  set(key: string, value: unknown, opts?: { ttlSeconds?: number; ifVersion?: number } & WriteOptions): Promise<{ version: number }>;
  cas(key: string, expectVersion: number, value: unknown, opts?: WriteOptions): Promise<{ version: number }>;
  delete(key: string, opts?: { ifVersion?: number } & WriteOptions): Promise<boolean>;
  list(opts?: { prefix?: string; cursor?: string; limit?: number }): Promise<{ keys: string[]; cursor: string }>;
  /**
   * The keyspace's changes as they commit, in order: `for await (const c of state.changes({prefix, since}))`.
   * Reconnects and resumes by itself; throws ChangesExpiredError (410) when `since` is no longer kept.
   */
  changes<T = unknown>(opts?: ChangesOptions): AsyncIterable<StateChange<T>>;
  /**
   * The same client (same URL, same token file) whose calls go through `trace`: each call
   * carries the trace headers it gives and reports how it ended. The runtime hands handlers
   * `ctx.state` bound so to the request's trace (docs/tracing.md).
   */
  withTrace(trace: StateCallTrace): StateClient;
}

export type StateOp = 'get' | 'set' | 'cas' | 'delete' | 'list' | 'changes';

/** One state call's part in a distributed trace (W3C trace context headers; docs/tracing.md). */
export interface StateCallTrace {
  /** A call starts: the trace context it carries and how to say it ended (the HTTP status, undefined when it failed without one). */
  start(op: StateOp): { traceparent?: string; tracestate?: string; end(status: number | undefined): void };
}

interface Credentials { namespace: string; keyspace: string; token: string }

export interface StateClientOptions {
  url?: string;
  tokenPath?: string;
  fetch?: typeof fetch;
  trace?: StateCallTrace;
  /**
   * How many times a write is sent again when its answer is lost: the request failed without
   * one (connection refused or reset, statesvc restarting) or was 502, 503 or 504. Default 3;
   * 0 = never. Each retry carries the write's `Idempotency-Key`, so it is applied at most once.
   */
  retries?: number;
  /** Wait before the first retry, doubled for each next one (at most 2 s), ±20 % jitter. Default 100 ms. */
  retryDelayMs?: number;
  /**
   * false: writes carry no `Idempotency-Key` of the client's making (one passed in a call is
   * still sent), and such writes are never retried. Default true.
   */
  idempotentWrites?: boolean;
}

/** Statuses meaning "no answer from statesvc itself": a proxy's, or statesvc's own 503 (database unreachable, not ready). */
const RETRY_STATUSES = new Set([502, 503, 504]);
const MAX_RETRY_DELAY_MS = 2000;

export function createStateClient(opts: StateClientOptions = {}): StateClient {
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

  const retry: RetryPolicy = { retries: opts.retries ?? 3, delayMs: opts.retryDelayMs ?? 100, idempotentWrites: opts.idempotentWrites ?? true };
  return bindClient(call, fail, opts.trace, retry);
}

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

interface RetryPolicy {
  retries: number;
  delayMs: number;
  idempotentWrites: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The five calls over one transport; `trace` (optional) sees each HTTP exchange. */
function bindClient(rawCall: Call, fail: (res: Response) => Promise<never>, trace: StateCallTrace | undefined, retry: RetryPolicy): StateClient {
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

  /**
   * One logical write: its key is made once, here, and every attempt sends it. Only a write with
   * a key is retried (statesvc answers a repeat with the stored outcome instead of writing
   * again); a StateError of the client's own (no URL, no token file) is not retried.
   */
  const write = async (op: StateOp, method: string, path: string, body: unknown, headers: Record<string, string>, idempotencyKey: string | undefined): Promise<Response> => {
    const key = idempotencyKey ?? (retry.idempotentWrites ? randomUUID() : undefined);
    const sent = key === undefined ? headers : { ...headers, 'idempotency-key': key };
    const retries = key === undefined ? 0 : retry.retries;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retries;
      try {
        const res = await call(op, method, path, body, sent);
        if (last || !RETRY_STATUSES.has(res.status)) return res;
        await res.body?.cancel();
      } catch (err) {
        if (last || err instanceof StateError) throw err;
      }
      const delay = Math.min(MAX_RETRY_DELAY_MS, retry.delayMs * 2 ** attempt);
      await sleep(delay * (0.8 + 0.4 * Math.random()));
    }
  };

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
      const res = await write('set', 'PUT', keyPath(key), value ?? null, { ...ifMatch(o.ifVersion), ...ttl }, o.idempotencyKey);
      return res.ok ? ((await res.json()) as { version: number }) : fail(res);
    },
    async cas(key, expectVersion, value, o = {}) {
      const res = await write('cas', 'POST', `${keyPath(key)}/cas`, { expectVersion, value: value ?? null }, {}, o.idempotencyKey);
      return res.ok ? ((await res.json()) as { version: number }) : fail(res);
    },
    async delete(key, o = {}) {
      const res = await write('delete', 'DELETE', keyPath(key), undefined, ifMatch(o.ifVersion), o.idempotencyKey);
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
    changes: <T>(o: ChangesOptions = {}) => followChanges<T>((path) => call('changes', 'GET', path, undefined, { accept: 'text/event-stream' }), o),
    withTrace: (next) => bindClient(rawCall, fail, next, retry),
  };
}
