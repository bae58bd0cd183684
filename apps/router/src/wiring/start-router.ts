/**
 * Assembles one router replica: route and endpoint sources, the data plane on `port`,
 * the admin listener (`/metrics`, `/v1/stats`, `/healthz`, `/readyz`) on `adminPort`,
 * the one-second stats loop (autoscaler push) and, with Redis, the shared tables.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import type { MessageLog } from '@orrery/log';
import type { Tracer } from '@orrery/tracing';
import { EndpointIndex, type EndpointRecord } from './admit/endpoint-index.ts';
import { DataPlane } from './data-plane.ts';
import { nodeHttpListener } from './ingress/node-http-ingress.ts';
import { RawIngress } from './ingress/raw-ingress-server.ts';
import type { EndpointSource } from './endpoints/endpoint-source.ts';
import { watchEndpointsFile } from './endpoints/endpoints-file.ts';
import { RegistryWatch } from './endpoints/registry-watch.ts';
import { EndpointGuard } from './endpoints/endpoint-guard.ts';
import { lookup } from 'node:dns/promises';
import { ActivatorModes } from './activator/activator-modes.ts';
import { PoolSpecializer } from './activator/pool-specializer.ts';
import type { TrustedProxies } from './proxy/trusted-proxies.ts';
import { UpstreamPools } from './proxy/upstream-pools.ts';
import { RouteTable, type RevisionRoute } from './routing/route-table.ts';
import { watchRoutesFile, type RouteSource } from './routing/routes-file.ts';
import { watchStoreRoutes } from './routing/store-route-source.ts';
import type { ResourceStore } from '@orrery/store';
import type { QuarantineTable, StickyOwnerRecorder } from './shared-tables.ts';
import { EndpointQuarantineTable } from './tables/endpoint-quarantine-table.ts';
import { StickyOwnerTable } from './tables/sticky-owner-table.ts';
import { createRouterMetrics } from './stats/metrics.ts';
import { RouterStats } from './stats/router-stats.ts';
import { StickyHotKeys } from './hot-keys/sticky-hot-keys.ts';
import { hotKeysRoute } from './hot-keys/hot-keys-route.ts';
import { keyHashOf, stickyOwnerLoad } from './hot-keys/hot-key-owner.ts';

export type IngressMode = 'raw' | 'node';

export interface RouterOptions {
  host: string;
  port: number;
  adminPort: number;
  /** `raw` (default): the net-based ingress for the common request, node:http for the rest; `node`: node:http only. */
  ingress?: IngressMode;
  routesFile?: string;
  /** Functions and Revisions from the resource store (list + watch), instead of routesFile. */
  store?: ResourceStore;
  endpointsFile?: string;
  registryUrl?: string;
  /** Namespaces to watch in the registry; default: those the routes mention. */
  registryNamespaces?: string[];
  registryToken?: string;
  /**
   * Platform components' addresses (`HOST[:PORT]` or URLs): registry endpoints there are never
   * used (endpoints/endpoint-guard.ts). The registry, autoscaler and executor URLs are added here.
   */
  platformEndpoints?: string[];
  /** Host-based routing domain (`<function>.<namespace>.<domain>`). */
  domain?: string;
  queueDepth: number;
  autoscalerUrl?: string;
  /** Bearer token for the operator's `/v1/autoscaler/*` and `/v1/executor/*` (its store token). */
  operatorToken?: string;
  /** Operator executor (`POST /v1/executor/specialize`): the cold path of pool-executor revisions. */
  executorUrl?: string;
  quarantineMs: number;
  maxBodyBytes: number;
  connectTimeoutMs: number;
  dialRetries: number;
  /** `--trusted-proxies`: peers whose forwarding headers are kept; undefined = overwrite every client's. */
  trustedProxies?: TrustedProxies;
  routerId: string;
  /** Shared tables (statesync); undefined = replica-local tables. */
  sharedTables?: SharedTables;
  /** `--sticky-owner-entries`: the LRU bound of the replica-local sticky owner table (shared tables bring their own). */
  stickyOwnerEntries?: number;
  /** Tracing on (`--otlp-endpoint`): spans per proxied request (tracing/request-trace.ts); absent = off. */
  tracer?: Tracer;
  log: MessageLog;
}

export interface SharedTables {
  quarantine: QuarantineTable;
  owners: StickyOwnerRecorder;
  status(): unknown;
  stop(): Promise<void>;
}

export interface RunningRouter {
  url: string;
  adminUrl: string;
  plane: DataPlane;
  /**
   * Stops. With `drainMs` (SIGTERM in a pod) the data plane first serves on that long, every
   * answer saying `Connection: close` (see @orrery/spec shutdown-drain.ts).
   */
  close(opts?: { drainMs?: number }): Promise<void>;
}

function listen(server: Server, port: number, host: string): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function hostForUrl(host: string): string {
  return host.includes(':') ? `[${host}]` : host;
}

export async function startRouter(o: RouterOptions): Promise<RunningRouter> {
  const index = new EndpointIndex();
  const stats = new RouterStats();
  const hotKeys = new StickyHotKeys();
  // Without Redis the same tables serve this replica alone.
  const quarantine = o.sharedTables?.quarantine ?? new EndpointQuarantineTable();
  const owners = o.sharedTables?.owners ?? new StickyOwnerTable({ maxEntries: o.stickyOwnerEntries });
  const pools = new UpstreamPools({ connectTimeoutMs: o.connectTimeoutMs, keepAliveTimeoutMs: 4_000 });
  const planeRef: { current?: DataPlane } = {};
  const metrics = createRouterMetrics(stats, () => planeRef.current?.queueDepths() ?? [], () => owners.usage());

  const lastPoke = new Map<string, number>();
  let pokeErrors = 0;
  const poke = (rev: RevisionRoute, queueLength: number, inflight: number): void => {
    if (!o.autoscalerUrl) return;
    const now = Date.now();
    // The first waiter always pokes at once; a growing queue pokes at most once a second.
    if (queueLength > 1 && now - (lastPoke.get(rev.key) ?? 0) < 1000) return;
    lastPoke.set(rev.key, now);
    // The operator answers once the revision's first worker is ready, with its address: admitted
    // at once, like a pool specialization's (the endpoints file or registry would take longer).
    // The demand now is what waits plus what is in flight: a poke that carried the queue alone
    // would make a busy revision look nearly idle to a panic window that has only this second.
    const body = { namespace: rev.namespace, function: rev.function, revision: rev.revision, queueLength, inflight, router: o.routerId, waitMs: POKE_WAIT_MS };
    postJson(`${o.autoscalerUrl}/v1/autoscaler/poke`, body, o.operatorToken, POKE_WAIT_MS + 2_000)
      .then((answer) => {
        const addresses = (answer as { addresses?: unknown } | undefined)?.addresses;
        if (Array.isArray(addresses)) for (const address of addresses) if (typeof address === 'string') admitAnswered({ namespace: rev.namespace, function: rev.function, revision: rev.revision, address, ready: true });
      })
      .catch((err: unknown) => {
        if (pokeErrors++ % 60 === 0) o.log(`autoscaler poke failed: ${String(err)}`, 'warn');
      });
  };

  let specializer: PoolSpecializer | undefined;
  const onWait = (rev: RevisionRoute, queueLength: number, inflight: number): void => {
    // Deduplicated per revision; a revision with a live specialized worker just gets its address.
    // The autoscaler is poked only for revisions the executor does not specialize (see coldRequest).
    if (specializer) specializer.coldRequest(rev, () => poke(rev, queueLength, inflight));
    else poke(rev, queueLength, inflight);
  };
  const activator = new ActivatorModes();
  const dp = new DataPlane(
    { index, quarantine, owners, stats, metrics, pools, activator, queueDepth: o.queueDepth, domainSuffix: o.domain ? `.${o.domain.toLowerCase()}` : undefined, quarantineMs: o.quarantineMs, maxBodyBytes: o.maxBodyBytes, dialRetries: o.dialRetries, trustedProxies: o.trustedProxies, poke: onWait, log: o.log, tracer: o.tracer, hotKeys },
    RouteTable.empty(),
  );
  planeRef.current = dp;

  // Endpoints: the union of the file and the registry, each reporting its complete set.
  let fileRecords: EndpointRecord[] = [];
  let registryRecords: EndpointRecord[] = [];
  // Registry endpoints pass the guard: never a platform component's address or the router's own.
  const guard = new EndpointGuard({
    platform: [...(o.platformEndpoints ?? []), ...[o.registryUrl, o.autoscalerUrl, o.executorUrl].filter((u): u is string => !!u)],
    selfPorts: [o.port, o.adminPort],
  });
  let registryAll: EndpointRecord[] = [];
  const refused = new Set<string>();
  const guardRegistry = (): void => {
    registryRecords = registryAll.filter((r) => {
      const verdict = guard.check(r.address);
      if (verdict.ok) return true;
      const key = `${r.namespace}/${r.revision} ${r.address}`;
      if (!refused.has(key) && refused.size < 10_000) {
        refused.add(key);
        o.log(`registry endpoint ${key} not used: ${verdict.reason}`, 'warn');
      }
      return false;
    });
  };
  // Pool cold path: addresses the executor answered, admitted until the file or registry lists them.
  let executorRecords: Array<EndpointRecord & { at: number }> = [];
  const applyEndpoints = (): void => {
    const listed = [...fileRecords, ...registryRecords];
    if (executorRecords.length) {
      const now = Date.now();
      executorRecords = executorRecords.filter((r) => now - r.at < 30_000 && !listed.some((l) => l.address === r.address && l.revision === r.revision));
    }
    const change = index.replace(executorRecords.length ? [...listed, ...executorRecords] : listed);
    // Only lift what is quarantined: a lift is a tombstone every replica hears.
    for (const a of change.changedAddresses) if (quarantine.isQuarantined(a)) quarantine.lift(a);
    for (const a of change.removedAddresses) pools.close(a);
    for (const r of change.changedRevisions) dp.drain(r);
  };

  // An address the operator answered (specialize, or a poke that waited for the first worker).
  const admitAnswered = (r: EndpointRecord): void => {
    if (executorRecords.some((e) => e.address === r.address && e.revision === r.revision)) return;
    executorRecords.push({ ...r, at: Date.now() });
    applyEndpoints();
  };
  if (o.executorUrl) {
    specializer = new PoolSpecializer({
      executorUrl: o.executorUrl,
      token: o.operatorToken,
      onAddress: admitAnswered,
      log: o.log,
    });
  }

  const sources: EndpointSource[] = [];
  let registry: RegistryWatch | undefined;
  let routeSource: RouteSource | undefined;
  const onRoutes = (t: RouteTable): void => {
    dp.routes = t;
    registry?.setNamespaces(o.registryNamespaces ?? t.namespaces());
    o.log(`routes loaded: ${t.list().length} functions, ${t.revisions.size} revisions`);
  };
  if (o.routesFile) routeSource = await watchRoutesFile(o.routesFile, onRoutes, (err) => o.log(`routes file: ${String(err instanceof Error ? err.message : err)} (keeping the last good routes)`, 'warn'));
  else if (o.store) routeSource = await watchStoreRoutes(o.store, onRoutes, (err) => o.log(`resource store: ${String(err instanceof Error ? err.message : err)} (keeping the last good routes)`, 'warn'));
  if (o.endpointsFile) {
    sources.push(
      await watchEndpointsFile(
        o.endpointsFile,
        (r) => {
          fileRecords = r;
          applyEndpoints();
        },
        (err) => o.log(`endpoints file: ${String(err instanceof Error ? err.message : err)} (keeping the last good endpoints)`, 'warn'),
      ),
    );
  }
  if (o.registryUrl) {
    registry = new RegistryWatch({
      url: o.registryUrl,
      namespaces: o.registryNamespaces ?? dp.routes.namespaces(),
      token: o.registryToken,
      onRecords: (r) => {
        registryAll = r;
        guardRegistry();
        applyEndpoints();
      },
      onIgnored: (instance, reason) => {
        if (refused.has(instance) || refused.size >= 10_000) return;
        refused.add(instance);
        o.log(`registry instance ${instance} not used: ${reason}`, 'warn');
      },
      onError: (err) => o.log(`registry watch: ${String(err instanceof Error ? err.message : err)}`, 'warn'),
    });
    sources.push(registry);
  }

  // node:http serves everything in `node` mode, and in `raw` mode the connections handed over.
  let draining = false;
  const nodeListener = nodeHttpListener(dp.handle);
  const nodeServer = createServer({ keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS, requestTimeout: 0 }, (req, res) => {
    if (draining) res.setHeader('connection', 'close');
    nodeListener(req, res);
  });
  nodeServer.headersTimeout = HEADERS_TIMEOUT_MS;
  const raw = (o.ingress ?? 'raw') === 'raw' ? new RawIngress({ handle: dp.handle, fallback: nodeServer, keepAliveTimeoutMs: KEEP_ALIVE_TIMEOUT_MS, keepAliveHintMs: KEEP_ALIVE_HINT_MS, headersTimeoutMs: HEADERS_TIMEOUT_MS }) : undefined;
  const admin = createServer((req, res) => {
    void handleAdmin(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: String(err), code: 'internal' }));
    });
  });
  const handleAdmin = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return json(res, 405, { error: 'admin endpoints are read-only: use GET', code: 'method_not_allowed' });
    if (path === '/healthz' || path === '/readyz') return json(res, 200, { status: 'ok', routerId: o.routerId });
    if (path === '/metrics') {
      const body = await metrics.registry.metrics();
      res.writeHead(200, { 'content-type': metrics.registry.contentType });
      res.end(body);
      return;
    }
    if (path === '/v1/stats') {
      return json(res, 200, {
        routerId: o.routerId,
        ...stats.view(),
        endpoints: index.all(),
        quarantined: quarantine.entries(),
        dialErrors: dp.dialErrors,
        activatorOutOfPath: activator.view(),
        ingress: raw ? { mode: 'raw', connections: raw.accepted, open: raw.openConnections, handovers: raw.handovers } : { mode: 'node' },
        registry: registry?.status(),
        statesync: o.sharedTables?.status(),
      });
    }
    if (path === '/v1/hot-keys') {
      const owner = (ns: string, name: string, hi: number, lo: number) => stickyOwnerLoad(dp.routes.get(ns, name), hi, lo, (k) => index.ready(k), (rev) => activator.admitLimit(rev));
      const a = hotKeysRoute(hotKeys, { query: (req.url ?? '').split('?')[1] ?? '', authorization: req.headers.authorization }, { routerId: o.routerId, token: o.operatorToken, owner, hash: keyHashOf });
      return json(res, a.status, a.body);
    }
    json(res, 404, { error: 'admin paths: /healthz, /readyz, /metrics, /v1/stats, /v1/hot-keys', code: 'not_found' });
  };

  // Once a second: close the concurrency windows, push them, retry waiters (quarantines expire silently).
  let pushErrors = 0;
  const tick = setInterval(() => {
    stats.roll();
    activator.expire(Date.now());
    dp.drainAll();
    if (o.autoscalerUrl) {
      const view = stats.view();
      postJson(`${o.autoscalerUrl}/v1/autoscaler/stats`, { router: o.routerId, at: view.at, revisions: view.revisions }, o.operatorToken)
        // The answer says where the activator stands; requests waiting for a revision that left the path go now.
        .then((answer) => {
          for (const key of activator.apply(answer, Date.now())) dp.drain(key);
        })
        .catch((err: unknown) => {
          if (pushErrors++ % 60 === 0) o.log(`autoscaler stats push failed: ${String(err)}`, 'warn');
        });
    }
  }, 1000);
  tick.unref();

  const a1 = raw ? await raw.listen(o.port, o.host) : await listen(nodeServer, o.port, o.host);
  const a2 = await listen(admin, o.adminPort, o.host);
  // Ports picked by `0` are known only now.
  guard.addSelfPorts([a1.port, a2.port]);
  const resolveNames = (): Promise<void> =>
    guard.resolveNames(async (name) => (await lookup(name, { all: true })).map((a) => a.address)).then(() => {
      guardRegistry();
      applyEndpoints();
    });
  void resolveNames();
  // Platform Service names are re-resolved: a recreated Service gets a new ClusterIP.
  const resolveTimer = setInterval(() => void resolveNames(), 30_000);
  resolveTimer.unref();
  guardRegistry();
  applyEndpoints();
  if (guard.entries.length) o.log(`registry endpoints on platform addresses are never used: ${guard.entries.join(', ')} (and this router's ports ${a1.port}, ${a2.port})`);
  const h = hostForUrl(o.host);
  return {
    url: `http://${h}:${a1.port}`,
    adminUrl: `http://${h}:${a2.port}`,
    plane: dp,
    async close({ drainMs = 0 } = {}) {
      if (drainMs > 0) {
        // The raw ingress answers Connection: close while closing; node's through the flag.
        draining = true;
        if (raw) raw.closing = true;
        await new Promise((r) => setTimeout(r, drainMs));
      }
      clearInterval(tick);
      clearInterval(resolveTimer);
      routeSource?.stop();
      await Promise.allSettled(sources.map((s) => s.stop()));
      if (raw) {
        // After a drain, an idle connection closes only once a client honouring the announced
        // keep-alive has stopped using it: closing one a client is sending on loses a POST.
        const grace = drainMs > 0 ? KEEP_ALIVE_HINT_MS : 0;
        await raw.close(grace + 5_000, grace);
      } else {
        await new Promise<void>((r) => {
          nodeServer.close(() => r());
          nodeServer.closeIdleConnections();
          setTimeout(() => nodeServer.closeAllConnections(), 5_000).unref();
        });
      }
      await new Promise<void>((r) => admin.close(() => r()));
      admin.closeAllConnections();
      await o.sharedTables?.stop();
      await pools.destroyAll();
    },
  };
}

function json(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * node's keep-alive idle timeout for the data plane, and the raw ingress' (so both behave alike):
 * longer than the 60 s idle timeout of common proxies in front (nginx, cloud load balancers), so
 * they close an idle connection first and never send on one the router is closing.
 */
const KEEP_ALIVE_TIMEOUT_MS = 65_000;
/**
 * What the raw ingress announces in `Keep-Alive: timeout=` (clients such as undici stop reusing
 * a connection a little before it): short, so a drained router can close its idle connections
 * soon without racing a client's next request.
 */
const KEEP_ALIVE_HINT_MS = 5_000;
/** A request head must be complete within this (slowloris); node's default. */
const HEADERS_TIMEOUT_MS = 60_000;

/** How long a poke may wait for the operator to answer with the woken revision's first worker. */
const POKE_WAIT_MS = 10_000;

async function postJson(url: string, body: unknown, token?: string, timeoutMs = 2_000): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await request(url, { method: 'POST', headers, body: JSON.stringify(body), headersTimeout: timeoutMs, bodyTimeout: 2_000 });
  if (res.statusCode >= 400) {
    await res.body.dump();
    throw new Error(`HTTP ${res.statusCode} from ${url}`);
  }
  return res.body.json().catch(() => undefined);
}
