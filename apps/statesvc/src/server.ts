import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { RawIngress, type ParsedHead, type RawExchange } from '@orrery/raw-http';
import { verifyAdminUrl } from '@orrery/auth';
import { refuseRestOfBody, routes, urlPath, urlQuery } from '@orrery/control-http';
import { createLogger, messageLog, type MessageLog } from '@orrery/log';
import {
  DEFAULT_IDEMPOTENCY_RETENTION_MS,
  DNS1123_LABEL,
  IDEMPOTENCY_RETENTION_HEADER,
  KEYSPACE_PATTERN,
  OPENAPI_PATH,
  statesvcOpenApiJson,
  type StateFenceResponse,
  type StateKeyspaceDeleted,
  type StateKeyspaceUsage,
  type StateListResponse,
  type StateNamespaceUsage,
} from '@orrery/spec';
import { ScopedStore, StateStoreError, versionConflict, type ChangeRetention, type ReadOutcome, type Scope, type StateDriver, type WriteOutcome } from '@orrery/statestore';
import { Authenticator, KEYSPACE_HEADER, NAMESPACE_HEADER } from './authenticate.ts';
import { ChangeFeedHub } from './change-feed-hub.ts';
import { serveChangeStream } from './change-stream.ts';
import { parseChangesRequest } from './changes-request.ts';
import { ErrorLog } from './error-log.ts';
import { FENCE_HEADER_NAME, fenceOf } from './fence-header.ts';
import { HttpError, sendError } from './http-error.ts';
import { idempotencyKeyOf, idempotencyRequestHash, idempotencyRetentionOf } from './idempotent-request.ts';
import { keyspaceId, type KeyspaceDeclaration, type KeyspaceTable } from './keyspaces.ts';
import { createKeyspaceHotKeys, hotKeysAnswer } from './keyspace-hot-keys.ts';
import { KeyspaceWriteCounters } from './keyspace-write-counters.ts';
import { keyspaceWritesAnswer } from './keyspace-writes-answer.ts';
import type { HotKeyTrackers } from '@orrery/spec';
import { StateMetrics, type Op } from './metrics.ts';
import type { Tracer } from '@orrery/tracing';
import { RequestSpan } from './request-span.ts';
import { readBoundedBody } from './read-body.ts';
import { RawStateExchange } from './raw-state-exchange.ts';
import { rawStateRoute } from './raw-state-route.ts';
import type { StateHttpRequest, StateHttpResponse } from './state-http.ts';
import { parseKey, parseListPrefix, parseTtlSeconds } from './state-key.ts';
import { VERSION_HEADER, writePrecondition } from './write-precondition.ts';

export interface StateServerOptions {
  driver: StateDriver;
  /** Declared keyspaces; a function (re-read per request) so a reload swaps the table. */
  keyspaces: () => KeyspaceTable;
  /**
   * False until the declarations' sources have been read once (the resource store's first sync):
   * until then /readyz answers 503 and an undeclared keyspace is 503, not 403, because an empty
   * table says nothing yet. Default: always true.
   */
  keyspacesSynced?: () => boolean;
  /** Current master key first, then the previous one during a rotation. */
  masterKeys: Buffer[];
  passThrough: boolean;
  namespaceByteBudget?: number;
  /** Hard cap on any request body, whatever a keyspace declares (default 1 MiB). */
  maxBodyBytes?: number;
  metrics?: StateMetrics;
  /** Default: a JSON-lines logger on stderr (@orrery/log); tests pass their own to collect lines. */
  log?: MessageLog;
  /** Tracing on (`--otlp-endpoint`): a span per state and admin request (request-span.ts); absent = off. */
  tracer?: Tracer;
  /** Default retention of idempotent writes' outcomes when a keyspace sets none (`--idempotency-retention`; 24h). */
  idempotencyRetentionMs?: number;
  /**
   * Tests only (`--test-fail-point exit-after-commit`, test-fail-point.ts): called after a write
   * committed and before its answer is sent.
   */
  afterCommit?: () => void;
  /** Hot keys per keyspace (GET /v1/admin/hot-keys); default: a fresh bounded set. */
  hotKeys?: HotKeyTrackers;
  /** Change feed (GET /v1/changes): open streams allowed per keyspace on this process (`--changes-max-streams`, default 100). */
  changesMaxStreams?: number;
  /** Change feed: a comment line this often on every stream (`--changes-heartbeat`, default 15 s). */
  changesHeartbeatMs?: number;
  /** Change feed: each followed keyspace is read this often even without a wake-up (default 1 s). */
  changesPollMs?: number;
  /** The change feed's retention as the sweeper applies it (main.ts); shown by GET /v1/admin/keyspace-writes. */
  changeRetention?: ChangeRetention;
}

export const DEFAULT_CHANGES_MAX_STREAMS = 100;
export const DEFAULT_CHANGES_HEARTBEAT_MS = 15_000;

const CAS_ENVELOPE_BYTES = 1024;

/** The 503 of a replica that has not read its keyspace declarations yet (RFC-0023: /readyz waits for the Function sync). */
export const KEYSPACES_NOT_SYNCED = 'statesvc has not loaded the keyspace declarations from the resource store yet; retry shortly';

/** `X-Orrery-Idempotency-Retention`, as Node names a request header. */
const RETENTION_HEADER = IDEMPOTENCY_RETENTION_HEADER.toLowerCase();

/** A request's `Idempotency-Key` and the retention it asked for (ms; undefined = the keyspace's). */
interface IdempotencyHeaders {
  key: string;
  retentionMs: number | undefined;
}

/** `X-Orrery-State-TTL` of a read: whole seconds left until `expiresAt` (0 once it passed). */
const secondsLeft = (expiresAt: number): number => Math.max(0, Math.ceil((expiresAt - Date.now()) / 1000));

/** The 404 of a read; one text, so a recorded 404 replays byte for byte. */
const keyMissing = (key: string) => new HttpError('not_found', `key ${JSON.stringify(key)} does not exist (or has expired)`);

/** JSON response; headers as a flat list (cheaper than spreading objects on the hot path). */
function sendJson(res: StateHttpResponse, status: number, body: string, version?: number, ttlSeconds?: number): void {
  const headers = ['content-type', 'application/json', 'content-length', String(Buffer.byteLength(body))];
  if (version !== undefined) headers.push('x-orrery-state-version', String(version));
  if (ttlSeconds !== undefined) headers.push('x-orrery-state-ttl', String(ttlSeconds));
  res.writeHead(status, headers);
  res.end(body);
}

/**
 * The statesvc HTTP handler (RFC-0023 §3): routes, scope from the token, errors as {error, code}.
 * Answers follow STATESVC_HTTP_API in @orrery/spec; the hot-path bodies are built as strings
 * (no object to type), and http-contract.int.test.ts parses every answer with the schemas.
 */
export function createStateHandler(opts: StateServerOptions) {
  const log = opts.log ?? messageLog(createLogger({ component: 'statesvc' }));
  const metrics = opts.metrics ?? new StateMetrics();
  const errorLog = new ErrorLog((line) => log(line, 'error'));
  const report = (code: string, err: unknown) => errorLog.report(code, err);
  const auth = new Authenticator(opts.masterKeys, opts.passThrough);
  const hardCap = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const hotKeys = opts.hotKeys ?? createKeyspaceHotKeys();
  const store = new ScopedStore(opts.driver, (s) => opts.keyspaces().get(keyspaceId(s.namespace, s.keyspace)), {
    namespaceByteBudget: opts.namespaceByteBudget,
    idempotencyRetentionMs: opts.idempotencyRetentionMs,
  });
  const afterCommit = opts.afterCommit;
  const feeds = new ChangeFeedHub(opts.driver, { pollMs: opts.changesPollMs });
  const writeCounts = new KeyspaceWriteCounters();

  const synced = opts.keyspacesSynced ?? (() => true);
  const declaration = (s: Scope) => {
    const d = opts.keyspaces().get(keyspaceId(s.namespace, s.keyspace));
    if (!d && !synced()) throw new HttpError('capability_unavailable', KEYSPACES_NOT_SYNCED);
    if (!d) throw new HttpError('forbidden', `keyspace ${s.namespace}/${s.keyspace} is not declared by any function (spec.state)`);
    return d;
  };

  const valueTooLarge = (limit: number) => () =>
    new StateStoreError('quota_value_bytes', `request body is larger than ${limit} bytes (the keyspace's maxValueBytes or the service's body cap)`, 'value_bytes');

  async function readJson(req: StateHttpRequest, limit: number): Promise<{ text: string; value: unknown }> {
    const raw = req instanceof RawStateExchange ? await req.readBody(limit, valueTooLarge(limit)) : await readBoundedBody(req as IncomingMessage, limit, valueTooLarge(limit));
    const text = raw.toString('utf8').trim();
    if (!text) throw new HttpError('bad_request', 'body must be a JSON value (e.g. {"n":1}, "text", 42, null)');
    try {
      return { text, value: JSON.parse(text) };
    } catch {
      throw new HttpError('bad_request', 'body is not valid JSON; send the value JSON-encoded with Content-Type: application/json');
    }
  }

  async function stateKeyRoute(req: StateHttpRequest, res: StateHttpResponse, rest: string, span: RequestSpan | undefined): Promise<void> {
    const method = req.method;
    const isCas = rest.endsWith('/cas') && method === 'POST';
    const op: Op = isCas ? 'cas' : method === 'GET' ? 'get' : method === 'PUT' ? 'set' : method === 'DELETE' ? 'delete' : 'get';
    if (!isCas && method !== 'GET' && method !== 'PUT' && method !== 'DELETE') {
      throw new HttpError('bad_request', `${method} is not allowed here: use GET, PUT or DELETE /v1/state/{key}, or POST /v1/state/{key}/cas`);
    }
    const key = parseKey(isCas ? rest.slice(0, -4) : rest);
    const scope = auth.scope(req.headers);
    span?.scope(scope);
    const decl = declaration(scope);
    hotKeys.observe(scope.namespace, scope.keyspace, key, performance.now());
    // On a GET the header makes a recorded read (docs/state.md "Recorded reads"); a GET without it
    // is the plain read, with nothing parsed or allocated for it.
    const idemHeader = req.headers['idempotency-key'];
    const idem: IdempotencyHeaders | undefined =
      idemHeader === undefined ? undefined : { key: idempotencyKeyOf(idemHeader)!, retentionMs: idempotencyRetentionOf(req.headers[RETENTION_HEADER]) };
    // Not part of the idempotency digest: it is the writer's authority, not what it asks for, so a
    // retry after a re-claim still replays the write that landed (docs/state.md "Fencing").
    const fence = op === 'get' ? undefined : fenceOf(req.headers[FENCE_HEADER_NAME]);
    try {
      await keyRequest(req, res, op, scope, decl, key, idem, fence);
    } catch (err) {
      // Per keyspace for the console (GET /v1/admin/keyspace-writes); the error still goes out as usual.
      if (err instanceof StateStoreError && err.code === 'fenced') writeCounts.count(scope.namespace, scope.keyspace, 'refused');
      else if (err instanceof StateStoreError && err.code === 'idempotency_mismatch') writeCounts.count(scope.namespace, scope.keyspace, 'mismatched');
      throw err;
    }
  }

  async function keyRequest(
    req: StateHttpRequest,
    res: StateHttpResponse,
    op: Op,
    scope: Scope,
    decl: KeyspaceDeclaration,
    key: string,
    idem: IdempotencyHeaders | undefined,
    fence: number | undefined,
  ): Promise<void> {
    if (op === 'get') {
      if (idem !== undefined) {
        const requestHash = idempotencyRequestHash({ op: 'get', key });
        return sendReadOutcome(res, scope, key, await store.getRecorded(scope, key, { key: idem.key, requestHash, retentionMs: idem.retentionMs }));
      }
      const entry = await store.get(scope, key);
      if (!entry) throw keyMissing(key);
      sendJson(res, 200, `{"value":${entry.value}}`, entry.version, entry.expiresAt === null ? undefined : secondsLeft(entry.expiresAt));
    } else if (op === 'set') {
      const ifVersion = writePrecondition({ ifMatch: req.headers['if-match'], version: req.headers[VERSION_HEADER] });
      const ttl = parseTtlSeconds(req.headers['x-orrery-state-ttl'] as string | undefined);
      const { text } = await readJson(req, Math.min(decl.maxValueBytes, hardCap));
      const ttlMs = ttl === undefined ? undefined : ttl * 1000;
      if (idem !== undefined) {
        const requestHash = idempotencyRequestHash({ op: 'put', key, value: text, ifVersion, ttlSeconds: ttl });
        return sendOutcome(res, op, scope, key, ifVersion, await store.setIdempotent(scope, key, text, { ifVersion, ttlMs, fence }, { ...idem, requestHash }));
      }
      const { version } = await store.set(scope, key, text, { ifVersion, ttlMs, fence });
      afterCommit?.();
      sendJson(res, 200, `{"version":${version}}`, version);
    } else if (op === 'delete') {
      const ifVersion = writePrecondition({ ifMatch: req.headers['if-match'], version: req.headers[VERSION_HEADER] });
      if (idem !== undefined) {
        const requestHash = idempotencyRequestHash({ op: 'delete', key, ifVersion });
        return sendOutcome(res, op, scope, key, ifVersion, await store.deleteIdempotent(scope, key, { ifVersion, fence }, { ...idem, requestHash }));
      }
      const deleted = await store.delete(scope, key, { ifVersion, fence });
      afterCommit?.();
      if (!deleted) throw missingOnDelete(key, ifVersion);
      sendJson(res, 200, '{"deleted":true}');
    } else {
      const { value } = await readJson(req, Math.min(decl.maxValueBytes + CAS_ENVELOPE_BYTES, hardCap));
      const body = value as { expectVersion?: unknown; value?: unknown } | null;
      if (typeof body !== 'object' || body === null || Array.isArray(body) || !('value' in body)) {
        throw new HttpError('bad_request', 'body must be {"expectVersion": <version or 0 for create-only>, "value": <JSON value>}');
      }
      const ev = body.expectVersion;
      if (typeof ev !== 'number' || !Number.isSafeInteger(ev) || ev < 0) throw new HttpError('bad_request', 'expectVersion must be a non-negative integer (0 = create-only)');
      const ifVersion = writePrecondition({ ifMatch: req.headers['if-match'], version: req.headers[VERSION_HEADER] }, ev);
      const ttl = parseTtlSeconds(req.headers['x-orrery-state-ttl'] as string | undefined);
      const text = JSON.stringify(body.value);
      const ttlMs = ttl === undefined ? undefined : ttl * 1000;
      if (idem !== undefined) {
        const requestHash = idempotencyRequestHash({ op: 'cas', key, value: text, ifVersion, ttlSeconds: ttl });
        return sendOutcome(res, op, scope, key, ifVersion, await store.setIdempotent(scope, key, text, { ifVersion, ttlMs, fence }, { ...idem, requestHash }));
      }
      const { version } = await store.set(scope, key, text, { ifVersion, ttlMs, fence });
      afterCommit?.();
      sendJson(res, 200, `{"version":${version}}`, version);
    }
  }

  /** RFC-0023: a precondition on a missing key fails (412), as it does for a write; without one the key is just not there. */
  function missingOnDelete(key: string, ifVersion: number | undefined): HttpError {
    if (ifVersion !== undefined) return new HttpError('version_conflict', `key ${JSON.stringify(key)} does not exist, so it is not at version ${ifVersion}; re-read it`);
    return new HttpError('not_found', `key ${JSON.stringify(key)} does not exist`);
  }

  /**
   * The answer to a write sent with `Idempotency-Key`, from its stored status and result. The
   * first answer and every replay are built here from the same outcome and the same request
   * (its digest matched), so they are byte for byte the same, plus `Idempotent-Replayed: true`
   * on a replay. The error bodies are the ones a write without the header gets.
   */
  function sendOutcome(res: StateHttpResponse, op: Op, scope: Scope, key: string, ifVersion: number | undefined, o: WriteOutcome): void {
    if (o.replayed) replayed(res, op, scope);
    else afterCommit?.();
    if (o.status === 200 && o.result === 'ok' && o.version !== null) return sendJson(res, 200, `{"version":${o.version}}`, o.version);
    if (o.status === 200 && o.result === 'deleted') return sendJson(res, 200, '{"deleted":true}');
    if (o.status === 412 && o.result === 'version_conflict') throw versionConflict(key, ifVersion ?? 0);
    if ((o.status === 412 || o.status === 404) && o.result === 'missing') throw missingOnDelete(key, o.status === 412 ? ifVersion : undefined);
    throw new StateStoreError('internal', 'a stored write outcome does not match its request', undefined, { cause: new Error(`outcome ${JSON.stringify(o)} for ${op}`) });
  }

  /** Marks an answer as a stored outcome (`Idempotent-Replayed: true`) and counts it. */
  function replayed(res: StateHttpResponse, op: Op, scope: Scope): void {
    res.setHeader('idempotent-replayed', 'true');
    metrics.idempotentReplayed(op);
    writeCounts.count(scope.namespace, scope.keyspace, 'replayed');
  }

  /**
   * The answer to a recorded read (a GET with `Idempotency-Key`), first or replayed, built from
   * the record alone, in a plain GET's format: the same body and version header every time. `X-Orrery-State-TTL` counts down to the recorded entry's deadline (the same deadline
   * on every replay, 0 once it passed), not to whatever the key holds now.
   */
  function sendReadOutcome(res: StateHttpResponse, scope: Scope, key: string, o: ReadOutcome): void {
    if (o.replayed) replayed(res, 'get', scope);
    if (o.entry === null) throw keyMissing(key);
    sendJson(res, 200, `{"value":${o.entry.value}}`, o.entry.version, o.entry.expiresAt === null ? undefined : secondsLeft(o.entry.expiresAt));
  }

  /** POST /v1/fences/{key}: a new fence for the key, in the token's keyspace (docs/state.md "Fencing"). */
  async function fenceRoute(req: IncomingMessage, res: ServerResponse, rest: string, span: RequestSpan | undefined): Promise<void> {
    if (req.method !== 'POST') throw new HttpError('bad_request', `${req.method} is not allowed here: use POST /v1/fences/{key} to claim a key`);
    const key = parseKey(rest);
    const scope = auth.scope(req.headers);
    span?.scope(scope);
    declaration(scope);
    const fence = await store.claimFence(scope, key);
    writeCounts.count(scope.namespace, scope.keyspace, 'claimed');
    sendJson(res, 200, JSON.stringify({ key, fence } satisfies StateFenceResponse));
  }

  /** GET /v1/changes: the keyspace's change feed as Server-Sent Events (change-stream.ts). */
  async function changesRoute(req: IncomingMessage, res: ServerResponse, query: string, span: RequestSpan | undefined): Promise<void> {
    if (req.method !== 'GET') throw new HttpError('bad_request', 'use GET /v1/changes?prefix=&since= to follow the keyspace\'s changes');
    const scope = auth.scope(req.headers);
    span?.scope(scope);
    declaration(scope);
    const request = parseChangesRequest(query, req.headers['last-event-id']);
    await serveChangeStream(req, res, scope, request, {
      hub: feeds,
      driver: opts.driver,
      maxStreams: opts.changesMaxStreams ?? DEFAULT_CHANGES_MAX_STREAMS,
      heartbeatMs: opts.changesHeartbeatMs ?? DEFAULT_CHANGES_HEARTBEAT_MS,
      stillDeclared: () => opts.keyspaces().has(keyspaceId(scope.namespace, scope.keyspace)),
      onError: (err) => {
        if (!(err instanceof StateStoreError && err.code === 'changes_expired')) report('capability_unavailable', err);
      },
      onOpen: () => metrics.changeStreams(+1),
      onClose: () => metrics.changeStreams(-1),
    });
  }

  async function listRoute(req: IncomingMessage, res: ServerResponse, query: string, span: RequestSpan | undefined): Promise<Op> {
    if (req.method !== 'GET') throw new HttpError('bad_request', 'use GET /v1/state?prefix=&cursor=&limit= to list keys');
    const scope = auth.scope(req.headers);
    span?.scope(scope);
    declaration(scope);
    const params = new URLSearchParams(query);
    const limitText = params.get('limit');
    let limit: number | undefined;
    if (limitText !== null && limitText !== '') {
      if (!/^\d{1,6}$/.test(limitText)) throw new HttpError('bad_request', 'limit must be an integer from 1 to 1000');
      limit = Number(limitText);
    }
    // The prefix follows the key rules and the cursor must be one this service handed out
    // (statestore's decodeCursor), so no NUL or control character ever reaches a driver.
    const prefix = parseListPrefix(params.get('prefix'));
    const result = await store.list(scope, { prefix, cursor: params.get('cursor') ?? undefined, limit });
    sendJson(res, 200, JSON.stringify(result satisfies StateListResponse));
    return 'list';
  }

  /**
   * The admin routes (docs/state.md "Admin"): the method, scope and signature checks first, for
   * every path under /v1/admin/ (an unknown one included), then the route.
   */
  async function adminRoute(req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
    // Reads are GET; the one destructive admin route (keyspace deletion) is DELETE.
    const method = path === '/v1/admin/keyspace' ? 'DELETE' : 'GET';
    if (req.method !== method) throw new HttpError('bad_request', `use ${method} ${path}`);
    // HMAC covers the URI, not headers: a header-borne admin scope could be swapped by a replayer.
    if (req.headers[NAMESPACE_HEADER] !== undefined || req.headers[KEYSPACE_HEADER] !== undefined) {
      throw new HttpError('bad_request', 'admin scope is read only from the signed scope-namespace / scope-keyspace query parameters, never from headers');
    }
    if (opts.masterKeys.length > 0) {
      const check = verifyAdminUrl(opts.masterKeys, method, req.url!);
      if (!check.ok) throw new HttpError('unauthorized', check.reason);
    } else if (!opts.passThrough) {
      throw new HttpError('unauthorized', 'admin routes need a signed URL and this statesvc has no master key');
    }
    await adminRoutes(req, res);
  }

  // No methods here: adminRoute has checked the one each path takes.
  const adminRoutes = routes(
    [
      {
        path: '/v1/admin/usage',
        handler: async (req, res) => {
          const params = new URLSearchParams(urlQuery(req.url));
          const namespace = params.get('scope-namespace');
          const keyspace = params.get('scope-keyspace');
          if (!namespace || !keyspace) throw new HttpError('bad_request', 'usage needs scope-namespace and scope-keyspace query parameters');
          const decl = opts.keyspaces().get(keyspaceId(namespace, keyspace));
          if (!decl) throw new HttpError('not_found', `keyspace ${namespace}/${keyspace} is not declared`);
          const usage = await opts.driver.usage({ namespace, keyspace });
          const answer: StateKeyspaceUsage = { namespace, keyspace, ...usage, maxKeys: decl.maxKeys, maxValueBytes: decl.maxValueBytes, defaultTTL: decl.defaultTTL };
          sendJson(res, 200, JSON.stringify(answer));
        },
      },
      {
        path: '/v1/admin/keyspace',
        handler: async (req, res) => {
          // Deliberately not limited to declared keyspaces: the operator deletes a keyspace's data
          // after the Function that declared it is gone.
          const params = new URLSearchParams(urlQuery(req.url));
          const namespace = params.get('scope-namespace');
          const keyspace = params.get('scope-keyspace');
          if (!namespace || !keyspace) throw new HttpError('bad_request', 'keyspace deletion needs scope-namespace and scope-keyspace query parameters');
          if (namespace.length > 63 || !DNS1123_LABEL.test(namespace) || keyspace.length > 63 || !KEYSPACE_PATTERN.test(keyspace)) {
            throw new HttpError('bad_request', 'scope-namespace must be a DNS-1123 label and scope-keyspace a keyspace name (lower-case letters, digits, dashes)');
          }
          const deleted = await opts.driver.deleteKeyspace({ namespace, keyspace });
          log(`admin: deleted keyspace ${namespace}/${keyspace} (${deleted} live keys)`);
          sendJson(res, 200, JSON.stringify({ deleted } satisfies StateKeyspaceDeleted));
        },
      },
      {
        path: '/v1/admin/hot-keys',
        handler: (req, res) => sendJson(res, 200, JSON.stringify(hotKeysAnswer(hotKeys, new URLSearchParams(urlQuery(req.url)), performance.now()))),
      },
      {
        path: '/v1/admin/keyspace-writes',
        handler: async (req, res) => {
          const answer = await keyspaceWritesAnswer(new URLSearchParams(urlQuery(req.url)), {
            driver: opts.driver,
            keyspaces: opts.keyspaces(),
            counters: writeCounts,
            openStreams: (namespace, keyspace) => feeds.streams({ namespace, keyspace }),
            changeRetention: opts.changeRetention ?? { maxAgeMs: 0, maxEvents: 0 },
            defaultIdempotencyRetentionMs: opts.idempotencyRetentionMs ?? DEFAULT_IDEMPOTENCY_RETENTION_MS,
          });
          sendJson(res, 200, JSON.stringify(answer));
        },
      },
      {
        path: '/v1/admin/namespaces',
        handler: async (req, res) => {
          const table = opts.keyspaces();
          const only = new URLSearchParams(urlQuery(req.url)).get('scope-namespace');
          const names = new Set<string>([...table.values()].map((d) => d.namespace));
          for (const n of await opts.driver.namespaces()) names.add(n);
          const namespaces: StateNamespaceUsage[] = [];
          for (const namespace of [...names].sort()) {
            if (only && namespace !== only) continue;
            const usage = await opts.driver.namespaceUsage(namespace);
            const used = new Map(usage.keyspaces.map((k) => [k.keyspace, k]));
            const declared = [...table.values()].filter((d) => d.namespace === namespace);
            const keyspaceNames = new Set([...declared.map((d) => d.keyspace), ...used.keys()]);
            namespaces.push({
              namespace,
              keys: usage.keys,
              bytes: usage.bytes,
              byteBudget: opts.namespaceByteBudget ?? 0,
              keyspaces: [...keyspaceNames].sort().map((keyspace) => {
                const d = table.get(keyspaceId(namespace, keyspace));
                const u = used.get(keyspace);
                return { keyspace, keys: u?.keys ?? 0, bytes: u?.bytes ?? 0, declared: !!d, maxKeys: d?.maxKeys ?? null, maxValueBytes: d?.maxValueBytes ?? null, defaultTTL: d?.defaultTTL ?? null };
              }),
            });
          }
          sendJson(res, 200, JSON.stringify({ namespaces }));
        },
      },
    ],
    {
      notFound: (req) => {
        throw new HttpError('not_found', `no admin route ${urlPath(req.url)}; use GET /v1/admin/usage, GET /v1/admin/namespaces, GET /v1/admin/hot-keys, GET /v1/admin/keyspace-writes or DELETE /v1/admin/keyspace`);
      },
    },
  );

  /** A span for a state or admin request (not for probes and scrapes); undefined when tracing is off. */
  function traced(req: StateHttpRequest, op: Op): RequestSpan | undefined {
    const tracer = opts.tracer;
    return tracer === undefined ? undefined : new RequestSpan(tracer, req.method ?? 'GET', op, header(req.headers.traceparent), header(req.headers.tracestate));
  }

  /** A request of `op` answered: its latency and its span. */
  function succeeded(res: StateHttpResponse, op: Op, span: RequestSpan | undefined, started: number): void {
    metrics.observe(op, 'ok', (performance.now() - started) / 1000);
    span?.end(res.statusCode, undefined);
  }

  /** A request that failed: statesvc's error answer, and with an op its latency and span. */
  function failed(req: StateHttpRequest, res: StateHttpResponse, err: unknown, op: Op | null, span: RequestSpan | undefined, started: number): void {
    // On the raw ingress the connection reads and drops the rest of a body (it took only bodies
    // within the cap); node's server would read all of one of any size, so there it is refused.
    if (!(req instanceof RawStateExchange) && !(req as IncomingMessage).complete) refuseRestOfBody(req as IncomingMessage, res as ServerResponse);
    const { code, status } = sendError(res, err, report);
    if (err instanceof StateStoreError && err.quotaKind) metrics.quotaRejected(err.quotaKind);
    if (op) metrics.observe(op, code, (performance.now() - started) / 1000);
    span?.end(status, code);
  }

  async function driverReady(res: ServerResponse): Promise<void> {
    try {
      await opts.driver.ping();
    } catch (err) {
      throw err instanceof HttpError ? err : new StateStoreError('capability_unavailable', 'state driver not ready', undefined, { cause: err });
    }
    sendJson(res, 200, '{"status":"ready"}');
  }

  /** A route counted as `op` in the metrics, with a span; it answers its own errors. */
  const observed =
    (op: Op, run: (req: IncomingMessage, res: ServerResponse, span: RequestSpan | undefined) => Promise<unknown>) =>
    async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
      const started = performance.now();
      const span = traced(req, op);
      try {
        await run(req, res, span);
        succeeded(res, op, span, started);
      } catch (err) {
        failed(req, res, err, op, span, started);
      }
    };

  // Every path but the hot /v1/state/{key} (handle tests that one first, as before). Methods are
  // checked inside each route, where statesvc answers 400 bad_request with the usage, not 405.
  const controlRoutes = routes(
    [
      { path: '/v1/fences/*', handler: observed('fence', (req, res, span) => fenceRoute(req, res, urlPath(req.url).slice(11), span)) },
      { path: '/v1/state', handler: observed('list', (req, res, span) => listRoute(req, res, urlQuery(req.url), span)) },
      { path: '/v1/changes', handler: observed('changes', (req, res, span) => changesRoute(req, res, urlQuery(req.url), span)) },
      { path: '/v1/admin/*', handler: observed('admin', (req, res) => adminRoute(req, res, urlPath(req.url))) },
      { path: '/healthz', handler: (_req, res) => sendJson(res, 200, '{"status":"ok"}') },
      {
        path: '/readyz',
        // Not async: an unsynced replica's 503 is thrown before the request is read to its end, as it always was.
        handler: (_req, res) => {
          if (!synced()) throw new HttpError('capability_unavailable', KEYSPACES_NOT_SYNCED);
          return driverReady(res);
        },
      },
      {
        path: OPENAPI_PATH,
        handler: (req, res) => {
          // Public: the document is generated from the wire contracts and holds no configuration.
          if (req.method !== 'GET') throw new HttpError('bad_request', `use GET ${OPENAPI_PATH}`);
          sendJson(res, 200, statesvcOpenApiJson());
        },
      },
      {
        path: '/metrics',
        handler: async (_req, res) => {
          const text = await metrics.registry.metrics();
          res.writeHead(200, { 'content-type': metrics.registry.contentType });
          res.end(text);
        },
      },
    ],
    {
      notFound: (req) => {
        throw new HttpError('not_found', `no route ${urlPath(req.url)}; the state API is under /v1/state`);
      },
    },
  );

  /** The data path, latency sensitive: /v1/state/{key}, with no route table, no params object, no closure. */
  async function handleStateKey(req: StateHttpRequest, res: StateHttpResponse, url: string, started: number): Promise<void> {
    const qi = url.indexOf('?');
    const rest = qi < 0 ? url.slice(10) : url.slice(10, qi);
    const m = req.method;
    const op: Op = m === 'POST' && rest.endsWith('/cas') ? 'cas' : m === 'PUT' ? 'set' : m === 'DELETE' ? 'delete' : 'get';
    const span = traced(req, op);
    try {
      await stateKeyRoute(req, res, rest, span);
      succeeded(res, op, span, started);
    } catch (err) {
      failed(req, res, err, op, span, started);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const url = req.url ?? '/';
    if (url.startsWith('/v1/state/')) return handleStateKey(req, res, url, started);
    try {
      await controlRoutes(req, res);
    } catch (err) {
      failed(req, res, err, null, undefined, started);
    }
  }

  function header(v: string | string[] | undefined): string | undefined {
    return Array.isArray(v) ? v.join(',') : v;
  }

  /** A state-key request of the raw ingress (rawStateRoute took it). */
  function handleRaw(ex: RawStateExchange): Promise<void> {
    return handleStateKey(ex, ex, ex.url, performance.now());
  }

  return { handle, handleRaw, metrics, closeChangeStreams: () => feeds.closeAll() };
}

export interface RunningStateServer {
  url: string;
  metrics: StateMetrics;
  /**
   * Stops serving. With `drainMs` (SIGTERM in a pod) it first keeps serving that long, answering
   * every request with `Connection: close`: a client reusing a kept-alive connection gets its
   * answer and the signal to reconnect (to a pod that stays), rather than a connection closed
   * under a request it just sent — which a POST cannot safely retry.
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

/** Idle keep-alive of the state API; a drain (`--drain`) should last at least this long. */
export const STATE_KEEP_ALIVE_MS = 5_000;
/** Time for a whole request to arrive (node's requestTimeout; the raw ingress counts it from the head). */
const STATE_REQUEST_TIMEOUT_MS = 60_000;
/** Time for a request head to arrive (node's headersTimeout). */
const STATE_HEADERS_TIMEOUT_MS = 30_000;
/** The body cap when none is given (`--max-body-bytes`). */
const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;

/**
 * How statesvc serves HTTP/1.1: `raw` (default) answers state-key requests on the raw ingress
 * (@orrery/raw-http: less CPU per request than node's server, docs/performance.md) and hands every other
 * request to node:http; `node` serves everything through node:http (`--http-ingress node`).
 */
export type StateHttpIngress = 'raw' | 'node';

/** Listens on host:port (0 = any free port). Closing stops the listener; the driver is the caller's. */
export async function startStateServer(opts: StateServerOptions & { host?: string; port?: number; httpIngress?: StateHttpIngress }): Promise<RunningStateServer> {
  const { handle, handleRaw, metrics, closeChangeStreams } = createStateHandler(opts);
  let draining = false;
  // Keep-alive 5 s, announced as such (node announces what it keeps): the SDK (undici) stops
  // reusing a connection 2 s before, so after a drain of at least 5 s no idle connection is one
  // a worker may still send on, and closing them races no state call. With 65 s, a state call
  // sent on a connection idle through the drain failed as the drain ended. Workers reach
  // statesvc directly (no proxy in front that would need the server to outlast its timeout).
  const server = createServer({ keepAliveTimeout: STATE_KEEP_ALIVE_MS, requestTimeout: STATE_REQUEST_TIMEOUT_MS, headersTimeout: STATE_HEADERS_TIMEOUT_MS }, (req, res) => {
    if (draining) res.setHeader('connection', 'close');
    void handle(req, res);
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nconnection: close\r\ncontent-type: application/json\r\n\r\n{"error":"malformed HTTP request","code":"bad_request"}');
    else socket.destroy();
  });
  const maxBodyBytes = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const raw =
    (opts.httpIngress ?? 'raw') === 'raw'
      ? new RawIngress({
          // node's server above is the fallback: it never listens itself.
          fallback: server,
          handle: (ex) => void handleRaw(new RawStateExchange(ex as RawExchange)),
          route: (head: ParsedHead) => rawStateRoute(head, maxBodyBytes),
          keepAliveTimeoutMs: STATE_KEEP_ALIVE_MS,
          headersTimeoutMs: STATE_HEADERS_TIMEOUT_MS,
          bodyTimeoutMs: STATE_REQUEST_TIMEOUT_MS,
        })
      : undefined;
  const host = opts.host ?? '127.0.0.1';
  let port: number;
  if (raw) port = (await raw.listen(opts.port ?? 0, host)).port;
  else {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(opts.port ?? 0, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    port = (server.address() as AddressInfo).port;
  }
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${shownHost}:${port}`,
    metrics,
    close: async ({ drainMs = 0 } = {}) => {
      // Change streams never end by themselves: end them now, so their clients resume on a replica that stays.
      closeChangeStreams();
      if (drainMs > 0) {
        draining = true;
        if (raw) raw.closing = true;
        await new Promise((r) => setTimeout(r, drainMs));
      }
      if (raw) {
        // Idle connections close now, busy ones after their answer; the rest are cut after 2 s.
        await raw.close(2000);
        return;
      }
      // server.close() also closes the idle connections (Node ≥ 19).
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        setTimeout(() => server.closeAllConnections(), 2000).unref();
      });
    },
  };
}
