import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Etcd3 } from 'etcd3';
import type {
  RegistryDeregisterData,
  RegistryHealthData,
  RegistryHeartbeatData,
  RegistryReadyData,
  RegistryRegisterData,
  RegistryTargetGroup,
} from '@orrery/spec';
import { OPENAPI_PATH, registryOpenApiJson } from '@orrery/spec';
import { parseIdentity, parseLeaseTtl, parseRegistration, type Instance } from '../model/instance.ts';
import { compareInstances, parseFilter, parseWatchOptions, type InstanceFilter } from '../query/filter.ts';
import { parseAnswerOptions } from '../query/answer-options.ts';
import { parseSdScope } from '../query/sd-scope.ts';
import type { ReplicationTarget } from '../replication/targets-file.ts';
import { IndexTimeoutError, type InstanceIndex } from '../etcd/instance-index.ts';
import type { InstanceWriter } from '../etcd/instance-writer.ts';
import type { KeyLayout } from '../etcd/keys.ts';
import { classifyEtcdError } from '../etcd/errors.ts';
import { serveWatch } from '../watch/watch-session.ts';
import { targetGroups, type SdContext } from '../prometheus-sd.ts';
import type { RegistryMetrics } from '../metrics.ts';
import type { WriteAction, WritePolicy } from '../auth/write-policy.ts';
import { clientKey, type WatchLimiter } from '../auth/watch-limits.ts';
import { bearerMatches, hasBearer, presentedBearer } from './auth.ts';
import { BodyError, readJson } from './body.ts';
import { newRequestId, sendEnvelope, sendEnvelopeJson, sendOk, STATUS_BY_CODE, type ErrorCode } from './envelope.ts';
import { instancesEnvelopeJson } from './instances-answer.ts';
import { BAD_TARGET_MESSAGE, requestUrl } from './request-url.ts';
import { HOST_MISSING_MESSAGE, hostMissing } from './protocol-errors.ts';
import { FailureLog } from './failure-log.ts';

export interface PublicApiDeps {
  client: Etcd3;
  index: InstanceIndex;
  writer: InstanceWriter;
  keys: KeyLayout;
  metrics: RegistryMetrics;
  replicationToken: string;
  prometheusSdToken: string;
  requestTimeoutMs: number;
  sd: () => SdContext;
  /** Current etcd leader as seen by one member; cached briefly by the caller. */
  leader: () => Promise<{ leaderId: string; leaderAddr: string } | undefined>;
  keepAliveMs?: number;
  /** Who may register, renew and remove what (auth/write-policy.ts). */
  writes: WritePolicy;
  /** Caps on concurrent watch streams, public and replication together (auth/watch-limits.ts). */
  watches: WatchLimiter;
  /** Where etcd's text goes when a failure is answered without it (stderr by default). */
  failures?: FailureLog;
  /** Other regions' instances (replication/), for Prometheus SD's scope=merged. */
  replicated?: (namespace?: string) => Iterable<{ target: ReplicationTarget; instance: Instance }>;
}

class ApiError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
  }
}

function must<T>(parsed: { ok: true; value: T } | { ok: false; message: string }): T {
  if (!parsed.ok) throw new ApiError('bad_request', parsed.message);
  return parsed.value;
}

/** Every route of the public listener (public-api.test.ts checks each is in docs/openapi/registry.json). */
export const PUBLIC_ROUTES: Record<string, { method: 'GET' | 'POST'; name: string }> = {
  '/api/v1/registry/register': { method: 'POST', name: 'register' },
  '/api/v1/registry/deregister': { method: 'POST', name: 'deregister' },
  '/api/v1/registry/heartbeat': { method: 'POST', name: 'heartbeat' },
  '/api/v1/registry/instances': { method: 'GET', name: 'instances' },
  '/api/v1/registry/watch': { method: 'GET', name: 'watch' },
  '/internal/v1/replication/watch': { method: 'GET', name: 'replication_watch' },
  '/internal/v1/prometheus/sd': { method: 'GET', name: 'prometheus_sd' },
  '/healthz': { method: 'GET', name: 'healthz' },
  '/readyz': { method: 'GET', name: 'readyz' },
  '/metrics': { method: 'GET', name: 'metrics' },
  [OPENAPI_PATH]: { method: 'GET', name: 'openapi' },
};

/**
 * The public listener: the StellMap data plane, the internal helpers, health and metrics. Its
 * routes and answers are REGISTRY_HTTP_API in @orrery/spec (typed here, checked by registry.int.test.ts).
 */
export function publicHandler(deps: PublicApiDeps) {
  const failures = deps.failures ?? new FailureLog();
  return (req: IncomingMessage, res: ServerResponse): void => {
    const requestId = newRequestId();
    const url = requestUrl(req, 'http://registry.invalid');
    const route = url ? PUBLIC_ROUTES[url.pathname] : undefined;
    const started = process.hrtime.bigint();
    let code: ErrorCode = 'ok';
    const done = (): void => {
      const name = route?.name ?? 'unknown';
      deps.metrics.requests.inc({ route: name, code });
      deps.metrics.duration.observe({ route: name }, Number(process.hrtime.bigint() - started) / 1e9);
    };
    const fail = (c: ErrorCode, message: string): void => {
      code = c;
      if (!res.headersSent) sendEnvelope(res, requestId, c, message);
      else res.end();
    };
    if (!url || hostMissing(req)) {
      fail('bad_request', url ? HOST_MISSING_MESSAGE : BAD_TARGET_MESSAGE);
      done();
      return;
    }
    if (!route) {
      fail('not_found', `no route ${url.pathname}; see docs/registry.md for the API`);
      done();
      return;
    }
    if (req.method !== route.method) {
      res.setHeader('allow', route.method);
      fail('method_not_allowed', `${url.pathname} accepts ${route.method} only`);
      done();
      return;
    }
    handle({ ...deps, failures }, route.name, req, res, url, requestId)
      .catch((err: unknown) => {
        if (err instanceof ApiError) return fail(err.code, err.message);
        if (err instanceof BodyError) return fail(err.code, err.message);
        if (err instanceof IndexTimeoutError) return fail('read_failed', err.message);
        // Writes that etcd did not take are propose failures; everything else is a failed read.
        const fallback: ErrorCode = route.method === 'POST' ? 'propose_failed' : 'read_failed';
        const c = classifyEtcdError(err, fallback);
        // The client gets the code and what to do; etcd's own text goes to the log only.
        failures.failed(requestId, route.name, c.code, c.detail);
        fail(c.code, c.message);
      })
      .finally(done);
  };
}

/** Throws the policy's refusal (401 credential_required / 403 credential_rejected) unless the writer may do this. */
function authorizeWrite(deps: PublicApiDeps, req: IncomingMessage, action: WriteAction, namespace: string, service: string): void {
  const decision = deps.writes.authorize(presentedBearer(req), namespace, service, action);
  if (!decision.ok) throw new ApiError(decision.code, decision.message);
}

async function handle(deps: PublicApiDeps & { failures: FailureLog }, route: string, req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<void> {
  switch (route) {
    case 'register': {
      const rec = must(parseRegistration(await readJson(req)));
      authorizeWrite(deps, req, 'register', rec.namespace, rec.service);
      const { revision, leaseId, record } = await deps.writer.register(rec);
      sendOk(res, requestId, { revision, instance: { ...record, revision, leaseId } } satisfies RegistryRegisterData);
      return;
    }
    case 'deregister': {
      const id = must(parseIdentity(await readJson(req)));
      authorizeWrite(deps, req, 'deregister', id.namespace, id.service);
      const out = await deps.writer.deregister(id);
      if (!out) throw new ApiError('not_found', `instance ${id.namespace}/${id.service}/${id.instanceId} is not registered`);
      sendOk(res, requestId, { revision: out.revision, instance: { namespace: id.namespace, service: id.service, instanceId: id.instanceId } } satisfies RegistryDeregisterData);
      return;
    }
    case 'heartbeat': {
      const body = await readJson(req);
      const id = must(parseIdentity(body));
      authorizeWrite(deps, req, 'heartbeat', id.namespace, id.service);
      const rawTtl = (body as Record<string, unknown>).leaseTtlSeconds;
      const ttl = rawTtl === undefined || rawTtl === null ? undefined : must(parseLeaseTtl(rawTtl));
      const out = await deps.writer.heartbeat(id, ttl);
      if (!out.found) {
        throw new ApiError('not_found', `instance ${id.namespace}/${id.service}/${id.instanceId} is not registered (or its lease expired); register it again`);
      }
      sendOk(res, requestId, {
        revision: out.instance.revision,
        leaseTtlSeconds: out.instance.leaseTtlSeconds,
        remainingTtlSeconds: out.remainingTtlSeconds,
        ttlChanged: out.ttlChanged,
      } satisfies RegistryHeartbeatData);
      return;
    }
    case 'instances': {
      const filter = must(parseFilter(url.searchParams));
      const answer = must(parseAnswerOptions(url.searchParams));
      const revision = await deps.index.barrier();
      sendEnvelopeJson(res, requestId, STATUS_BY_CODE.ok, instancesEnvelopeJson(requestId, revision, deps.index.select(filter, answer)));
      return;
    }
    case 'replication_watch':
      requireBearer(req, deps.replicationToken, 'replication');
    // falls through
    case 'watch': {
      const filter = must(parseFilter(url.searchParams));
      const params = new URLSearchParams(url.searchParams);
      // EventSource clients resume with Last-Event-ID; it means the same as sinceRevision.
      const lastEventId = req.headers['last-event-id'];
      if (!params.has('sinceRevision') && typeof lastEventId === 'string' && /^\d+$/.test(lastEventId)) params.set('sinceRevision', lastEventId);
      const opts = must(parseWatchOptions(params));
      const answer = must(parseAnswerOptions(params));
      const slot = deps.watches.acquire(clientKey(req.socket.remoteAddress));
      if (!slot.ok) {
        res.setHeader('retry-after', String(slot.retryAfterSeconds));
        throw new ApiError(slot.code, slot.message);
      }
      // Freed when the stream (or the error answer) is over, however it ends: the response's
      // 'close', or the request's — a watch pipelined behind another request has a response still
      // queued when the connection goes, and Node emits no 'close' for it, only destroys the request.
      res.once('close', slot.release);
      req.once('close', slot.release);
      if (req.socket.destroyed) slot.release();
      await serveWatch(
        req,
        res,
        {
          index: deps.index,
          client: deps.client,
          keys: deps.keys,
          requestTimeoutMs: deps.requestTimeoutMs,
          keepAliveMs: deps.keepAliveMs,
          onOpen: () => deps.metrics.watchers.inc(),
          onClose: () => deps.metrics.watchers.dec(),
          onFailure: (detail) => deps.failures.failed(requestId, route, 'read_failed', detail),
        },
        filter,
        opts,
        answer,
        (code, message) => {
          throw new ApiError(code, message);
        },
      );
      return;
    }
    case 'prometheus_sd': {
      requireBearer(req, deps.prometheusSdToken, 'Prometheus SD');
      const params = url.searchParams;
      const scope = must(parseSdScope(params));
      const includeSelf = params.get('includeSelf') === 'true';
      const answer = must(parseAnswerOptions(params));
      const endpoint = params.get('endpoint') || 'metrics';
      const filterParams = new URLSearchParams(params);
      filterParams.delete('endpoint');
      // Prometheus SD may span every namespace: namespace is optional here.
      const namespace = params.get('namespace');
      await deps.index.barrier();
      let groups: RegistryTargetGroup[];
      // scope=merged adds the other regions' instances, labelled with their region and cluster.
      const replicated = (filter: InstanceFilter): RegistryTargetGroup[] => {
        if (scope !== 'merged' || !deps.replicated) return [];
        const byTarget = new Map<ReplicationTarget, Instance[]>();
        for (const { target, instance } of deps.replicated(filter.namespace)) {
          const list = byTarget.get(target) ?? [];
          list.push(instance);
          byTarget.set(target, list);
        }
        return [...byTarget].flatMap(([t, list]) => targetGroups(list.sort(compareInstances), filter, endpoint, { region: t.region, clusterId: t.clusterId }, false));
      };
      if (namespace) {
        const filter = must(parseFilter(filterParams));
        groups = [...targetGroups(deps.index.select(filter, answer), filter, endpoint, deps.sd(), includeSelf), ...replicated(filter)];
      } else {
        const namespaces = new Set([...deps.index.all()].map(([, i]) => i.namespace));
        if (scope === 'merged' && deps.replicated) for (const { instance } of deps.replicated()) namespaces.add(instance.namespace);
        groups = [];
        for (const ns of [...namespaces].sort()) {
          filterParams.set('namespace', ns);
          const filter = must(parseFilter(filterParams));
          groups.push(...targetGroups(deps.index.select(filter, answer), filter, endpoint, deps.sd(), false), ...replicated(filter));
        }
        if (includeSelf) groups.push(...targetGroups([], { namespace: '', services: [], prefixes: [], requirements: [] }, endpoint, deps.sd(), true));
      }
      const body = JSON.stringify(groups);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    case 'healthz': {
      const leader = await deps.leader().catch(() => undefined);
      sendOk(res, requestId, { status: 'alive', leaderId: leader?.leaderId ?? '', leaderAddr: leader?.leaderAddr ?? '', indexRevision: deps.index.revision } satisfies RegistryHealthData);
      return;
    }
    case 'readyz': {
      if (!deps.index.ready) throw new ApiError('not_ready', 'the registry index is still loading from etcd');
      const leader = await deps.leader().catch(() => undefined);
      if (!leader?.leaderId) throw new ApiError('not_ready', 'etcd has no leader (or no member answered); not serving linearizable reads');
      sendOk(res, requestId, { status: 'ready', leaderId: leader.leaderId, indexRevision: deps.index.revision } satisfies RegistryReadyData);
      return;
    }
    case 'openapi': {
      // Public and bare (no envelope), like Prometheus SD: generated from the wire contracts, no configuration in it.
      const body = registryOpenApiJson();
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
      res.end(body);
      return;
    }
    case 'metrics': {
      const text = await deps.metrics.registry.metrics();
      res.writeHead(STATUS_BY_CODE.ok, { 'content-type': deps.metrics.registry.contentType });
      res.end(text);
      return;
    }
  }
}

function requireBearer(req: IncomingMessage, token: string, what: string): void {
  if (!hasBearer(req)) throw new ApiError('unauthorized', `${what} endpoint needs Authorization: Bearer <token>`);
  if (!bearerMatches(req, token)) throw new ApiError('forbidden', `the ${what} token is not valid`);
}
