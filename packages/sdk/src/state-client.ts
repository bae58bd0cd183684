/**
 * Function-side client for the Orrery state API (statesvc). A thin wrapper over fetch: every
 * call is one HTTP request, except that a write whose answer is lost (the connection fails, or
 * 502/503/504) is sent again with the same `Idempotency-Key`, so it is applied once. Scope comes
 * from the token file the runtime writes.
 */
import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';

import { FenceTable } from './fence-table.ts';
import { IDEMPOTENCY_RETENTION_HEADER, InvocationPositions } from './invocation-positions.ts';
import { KeySerializer } from './key-serializer.ts';
import { FencedError, UpdateConflictError } from './fenced-error.ts';
import { followChanges, type ChangesOptions, type StateChange } from './state-changes.ts';
import { retryDelay } from './retry-delay.ts';
import { StateError } from './state-error.ts';

export { FencedError, StateError, UpdateConflictError };

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
  /**
   * Read, `fn(value)`, compare-and-swap with the version read — again when another writer got
   * in between (412), up to `retries` more times (default 5), then UpdateConflictError. `fn` gets
   * undefined for a missing key (the write then creates it) and may run more than once: keep it
   * free of side effects. Fenced like every write (a 409 is a FencedError, not retried).
   */
  update<T = unknown>(key: string, fn: (current: T | undefined) => T | Promise<T>, opts?: UpdateOptions): Promise<{ value: T; version: number }>;
  /**
   * Claims the key for this worker now (`POST /v1/fences/{key}`) and returns the fence; writes of
   * the key send it from then on. Writes claim by themselves on a key's first write in the
   * process; call this to take a key over before reading it.
   */
  claim(key: string): Promise<number>;
  /**
   * The same client for a request the router marked "key moved here" (`X-Orrery-Key-Moved: 1`,
   * the runtime does this for `ctx.state`): each key's first write through it claims a new fence.
   */
  withKeyMoved(): StateClient;
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
  /**
   * The same client for one run of a replayable invocation (the runtime does this for `ctx.state`
   * when the router sends `Orrery-Invocation-Id`; docs/state.md "Replayed invocations"): each
   * get, set, cas and delete — update()'s included — takes the next position in call order and
   * is sent with `Idempotency-Key: <invocationId>.<position>`, kept for `retentionSeconds`. A
   * second run with the same id gets the first run's answers at the positions the first run
   * reached, so its reads see what the first run saw and its writes apply once. A key passed in a
   * call still wins (the position is used up all the same). list, changes and claim are not
   * numbered: they answer from the state as it is.
   */
  withInvocation(invocationId: string, opts: { retentionSeconds: number }): StateClient;
}

export type StateOp = 'get' | 'set' | 'cas' | 'delete' | 'list' | 'changes' | 'fence';

export interface UpdateOptions {
  /** Compare-and-swap attempts after the first, on version conflicts. Default 5. */
  retries?: number;
  /** As for set: seconds to live for the written value. */
  ttlSeconds?: number;
}

const DEFAULT_UPDATE_RETRIES = 5;
/** update()'s pause after a lost race: up to this many ms at first, doubling, at most UPDATE_MAX_BACKOFF_MS. */
const UPDATE_BACKOFF_MS = 10;
const UPDATE_MAX_BACKOFF_MS = 500;
/** Request header the router sets on the first request of a key that moved to this worker. */
export const KEY_MOVED_HEADER = 'x-orrery-key-moved';

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
  /**
   * true: writes are fenced (docs/state.md "Fencing"): a key's first write in this process claims
   * a fence and every write of the key sends it; a write after another worker claimed the key
   * fails with FencedError. Default false (no claims, no `X-Orrery-Fence`): until the router
   * tells a worker that a key moved back to it, a worker that owned a key before would keep its
   * old fence and be refused, so fencing is for code that decides ownership itself (claim()).
   */
  fencing?: boolean;
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

  async function fail(res: Response, key?: string): Promise<never> {
    const text = await res.text();
    let code = 'internal';
    let message = text || res.statusText;
    let fence = 0;
    try {
      const e = JSON.parse(text) as { error?: string; code?: string; fence?: number };
      code = e.code ?? code;
      message = e.error ?? message;
      fence = typeof e.fence === 'number' ? e.fence : 0;
    } catch { /* not JSON: keep the raw text */ }
    if (code === 'fenced' && res.status === 409) throw new FencedError(key ?? '', fence, message);
    throw new StateError(code, res.status, message);
  }

  const retry: RetryPolicy = { retries: opts.retries ?? 3, delayMs: opts.retryDelayMs ?? 100, idempotentWrites: opts.idempotentWrites ?? true };
  const fences = opts.fencing === true ? new FenceTable() : undefined;
  return bindClient(call, fail, { trace: opts.trace, retry, fences, moved: undefined, updates: new KeySerializer() });
}

type Call = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<Response>;

interface RetryPolicy {
  retries: number;
  delayMs: number;
  idempotentWrites: boolean;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Binding {
  trace: StateCallTrace | undefined;
  retry: RetryPolicy;
  /** The process's fences (one table for every binding); undefined = fencing off. */
  fences: FenceTable | undefined;
  /** A "key moved" binding: the keys already claimed afresh through it; undefined otherwise. */
  moved: Set<string> | undefined;
  /** One update() at a time per key in this process (every binding shares it). */
  updates: KeySerializer;
  /** A replayable invocation's numbering (withInvocation); undefined otherwise. */
  positions?: InvocationPositions;
}

/** The calls over one transport; `trace` (optional) sees each HTTP exchange. */
function bindClient(rawCall: Call, fail: (res: Response, key?: string) => Promise<never>, b: Binding): StateClient {
  const { trace, retry, fences, moved, updates, positions } = b;
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
  const claim = async (stateKey: string): Promise<number> => {
    const res = await call('fence', 'POST', `/v1/fences/${encodeURIComponent(stateKey)}`);
    if (!res.ok) return fail(res, stateKey);
    return ((await res.json()) as { fence: number }).fence;
  };
  /** The fence header of a write of `stateKey` (claimed first when needed); none with fencing off. */
  const fenceHeader = async (stateKey: string): Promise<Record<string, string>> => {
    if (!fences) return {};
    const fresh = moved !== undefined && !moved.has(stateKey);
    moved?.add(stateKey);
    return { 'x-orrery-fence': String(await fences.fenceFor(stateKey, claim, fresh)) };
  };

  /**
   * Sends one keyed request, and again with the same key when its answer is lost: statesvc
   * answers a repeat with the stored outcome instead of applying it again. A StateError of the
   * client's own (no URL, no token file) is not retried.
   */
  const sendKeyed = async (op: StateOp, method: string, path: string, body: unknown, headers: Record<string, string>, key: string): Promise<Response> => {
    const sent = { ...headers, 'idempotency-key': key };
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= retry.retries;
      try {
        const res = await call(op, method, path, body, sent);
        if (last || !RETRY_STATUSES.has(res.status)) return res;
        await res.body?.cancel();
      } catch (err) {
        if (last || err instanceof StateError) throw err;
      }
      const delay = retryDelay(attempt, retry.delayMs, MAX_RETRY_DELAY_MS);
      await sleep(delay * (0.8 + 0.4 * Math.random()));
    }
  };
  /** The headers of a call numbered by the invocation (its key and how long statesvc keeps the answer). */
  const numbered = (position: string): Record<string, string> => ({ 'idempotency-key': position, [IDEMPOTENCY_RETENTION_HEADER]: positions!.retention });

  const write = async (op: StateOp, method: string, path: string, body: unknown, headers: Record<string, string>, idempotencyKey: string | undefined, stateKey: string): Promise<Response> => {
    // Taken before anything is awaited, so positions follow the order of the calls.
    const position = positions?.next();
    // One fence for every attempt of this write (its retries are the same request).
    const fenced = { ...headers, ...(await fenceHeader(stateKey)) };
    if (idempotencyKey !== undefined) return sendKeyed(op, method, path, body, fenced, idempotencyKey);
    if (position !== undefined) return sendKeyed(op, method, path, body, { ...fenced, ...numbered(position) }, position);
    if (retry.idempotentWrites) return sendKeyed(op, method, path, body, fenced, randomUUID());
    return call(op, method, path, body, fenced);
  };

  async function get<T>(key: string): Promise<{ value: T; version: number } | null> {
    // In a replayable invocation a read is recorded (statesvc keeps its answer for a replay).
    const position = positions?.next();
    const res = position === undefined ? await call('get', 'GET', keyPath(key)) : await sendKeyed('get', 'GET', keyPath(key), undefined, numbered(position), position);
    if (res.status === 404) { await res.body?.cancel(); return null; }
    if (!res.ok) return fail(res);
    const { value } = (await res.json()) as { value: T };
    return { value, version: Number(res.headers.get('x-orrery-state-version')) };
  }
  async function cas(key: string, expectVersion: number, value: unknown, o: WriteOptions = {}, ttlSeconds?: number): Promise<{ version: number }> {
    const ttl: Record<string, string> = ttlSeconds === undefined ? {} : { 'x-orrery-state-ttl': String(ttlSeconds) };
    const res = await write('cas', 'POST', `${keyPath(key)}/cas`, { expectVersion, value: value ?? null }, ttl, o.idempotencyKey, key);
    return res.ok ? ((await res.json()) as { version: number }) : fail(res, key);
  }

  return {
    get,
    async set(key, value, o = {}) {
      const ttl: Record<string, string> = o.ttlSeconds === undefined ? {} : { 'x-orrery-state-ttl': String(o.ttlSeconds) };
      const res = await write('set', 'PUT', keyPath(key), value ?? null, { ...ifMatch(o.ifVersion), ...ttl }, o.idempotencyKey, key);
      return res.ok ? ((await res.json()) as { version: number }) : fail(res, key);
    },
    cas,
    async delete(key, o = {}) {
      const res = await write('delete', 'DELETE', keyPath(key), undefined, ifMatch(o.ifVersion), o.idempotencyKey, key);
      if (res.status === 404) { await res.body?.cancel(); return false; }
      if (!res.ok) return fail(res, key);
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
    update<T>(key: string, fn: (current: T | undefined) => T | Promise<T>, o: UpdateOptions = {}) {
      const attempts = 1 + Math.max(0, o.retries ?? DEFAULT_UPDATE_RETRIES);
      // One at a time per key in this process: only another process's write can make it retry.
      return updates.run(key, async () => {
        for (let attempt = 1; ; attempt++) {
          const current = await get<T>(key);
          const value = await fn(current?.value);
          try {
            const { version } = await cas(key, current?.version ?? 0, value, {}, o.ttlSeconds);
            return { value, version };
          } catch (err) {
            // Only a lost race is retried; a fenced write, a quota or anything else ends the update.
            if (!(err instanceof StateError && err.code === 'version_conflict' && !(err instanceof FencedError))) throw err;
            if (attempt >= attempts) throw new UpdateConflictError(key, attempts);
          }
          // Another process won the race: a random pause (growing with each loss) spreads the losers out.
          await sleep(Math.random() * retryDelay(attempt - 1, UPDATE_BACKOFF_MS, UPDATE_MAX_BACKOFF_MS));
        }
      });
    },
    claim: async (key: string) => {
      if (!fences) return claim(key);
      moved?.add(key);
      return fences.fenceFor(key, claim, true);
    },
    withTrace: (next) => bindClient(rawCall, fail, { ...b, trace: next }),
    withKeyMoved: () => bindClient(rawCall, fail, { ...b, moved: new Set() }),
    withInvocation: (invocationId, o) => bindClient(rawCall, fail, { ...b, positions: new InvocationPositions(invocationId, o.retentionSeconds) }),
  };
}
