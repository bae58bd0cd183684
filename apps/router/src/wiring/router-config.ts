/**
 * Config, the first wiring step: the command line and the environment become the router's
 * settings. Anything invalid ends the process with exit code 2 and the usage text, before
 * anything listens.
 */
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { registerSecret, registerUrlSecret, resolveLogFormat, resolveLogLevel, type LogFormat, type LogLevel } from '@orrery/log';
import { resolveDrainMs, STATESYNC_ENV } from '@orrery/spec';
import { createHttpStore } from '@orrery/store/client';
import { resolveTraceSettings, type TraceSettings } from '@orrery/tracing';
import { parseHostPort } from '../endpoints/endpoint-guard.ts';
import { TrustedProxies } from '../proxy/trusted-proxies.ts';
import { ROUTER_TABLES, type RouterTable, type SharedTablesOptions } from '../shared-tables-redis.ts';
import { DEFAULT_STICKY_OWNER_ENTRIES } from '../tables/sticky-owner-table.ts';
import type { RouterOptions } from './router-options.ts';

export interface RouterConfig {
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** After SIGTERM, serve on this long (every answer saying Connection: close). */
  drainMs: number;
  tracing: TraceSettings;
  /** With a Redis URL: the tables shared with the other replicas. */
  sharedTables: Omit<SharedTablesOptions, 'log'> | undefined;
  /** Syncables asked for that this router does not have (another component's tables). */
  ignoredSyncables: string[];
  router: Omit<RouterOptions, 'log' | 'sharedTables' | 'tracer'>;
}

const USAGE = `usage: orrery-router [--host 127.0.0.1] [--port 8080] [--admin-port 9090] [--ingress raw|node]
  (--routes-file routes.yaml | --store-url http://operator:7070 [--store-token-file FILE])
  [--endpoints-file endpoints.yaml]
  [--registry-url http://registry:8500 [--registry-token-file FILE]] [--registry-namespace ns ...] [--domain example.com]
  [--tls-port 8443 --tls-certs-dir DIR (TLS for spec.domains: <host>.pem files the operator writes; off by default)]
  [--tls-redirect-port 443 (the port HTTP → HTTPS redirects name; default the TLS port)]
  [--queue-depth 10000] [--autoscaler-url http://operator:7070]
  [--executor-url http://operator:7070 (pool executor cold path)] [--redis-url redis://127.0.0.1:6379]
  [--redis-key-prefix orrery] [--sync-period-ms 10000] [--record-ttl-ms 120000]
  [--syncables endpoint-quarantine,sticky-owners (tables shared through Redis)]
  [--redis-tls] [--redis-tls-insecure-skip-verify] [--router-id id]
  [--sticky-owner-entries 100000 (sticky keys remembered for teleport detection; least recently used forgotten)]
  [--quarantine-ms 30000] [--connect-timeout-ms 2000] [--dial-retries 2]
  [--max-body-bytes 67108864 (0 = unlimited)]
  [--drain DURATION (after SIGTERM keep serving this long, each answer saying Connection: close; default 5s in a pod, else 0s)]
  [--platform-endpoint HOST[:PORT] ... (platform components: registry endpoints there are never used;
   the registry, store, autoscaler, executor and Redis URLs are added by themselves)]
  [--trusted-proxies CIDR,... (peers whose X-Forwarded-*/Forwarded are kept and appended to; default none: overwritten)]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (OpenTelemetry traces over OTLP/HTTP; or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
   OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER[_ARG], OTEL_SDK_DISABLED; default off: see docs/tracing.md)]
The registry token, when the registry needs one, comes from --registry-token-file, else ORRERY_REGISTRY_TOKEN. Each state-sync flag
not given is read from the environment a StateSync renders on Kubernetes: ORRERY_REDIS_URL,
ORRERY_REDIS_KEY_PREFIX, ORRERY_SYNC_PERIOD_MS, ORRERY_STATESYNC_RECORD_TTL_MS, ORRERY_STATESYNC_SYNCABLES,
ORRERY_REDIS_TLS and ORRERY_REDIS_TLS_INSECURE_SKIP_VERIFY ("true"/"false").`;

function fail(message: string): never {
  console.error(`orrery-router: ${message}\n${USAGE}`);
  process.exit(2);
}

function int(name: string, value: string | undefined, dflt: number, min = 0): number {
  if (value === undefined) return dflt;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min) fail(`--${name} must be an integer ≥ ${min}, got ${JSON.stringify(value)}`);
  return n;
}

export function readRouterConfig(argv: string[], environment: NodeJS.ProcessEnv): RouterConfig {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        host: { type: 'string', default: '127.0.0.1' },
        port: { type: 'string', default: '8080' },
        'admin-port': { type: 'string', default: '9090' },
        ingress: { type: 'string', default: 'raw' },
        'routes-file': { type: 'string' },
        'store-url': { type: 'string' },
        'store-token-file': { type: 'string' },
        'endpoints-file': { type: 'string' },
        'registry-url': { type: 'string' },
        'registry-token-file': { type: 'string' },
        'registry-namespace': { type: 'string', multiple: true },
        domain: { type: 'string' },
        'tls-port': { type: 'string' },
        'tls-certs-dir': { type: 'string' },
        'tls-redirect-port': { type: 'string' },
        'queue-depth': { type: 'string' },
        'autoscaler-url': { type: 'string' },
        'executor-url': { type: 'string' },
        'redis-url': { type: 'string' },
        'redis-key-prefix': { type: 'string' },
        'sync-period-ms': { type: 'string' },
        'record-ttl-ms': { type: 'string' },
        syncables: { type: 'string' },
        'redis-tls': { type: 'boolean' },
        'redis-tls-insecure-skip-verify': { type: 'boolean' },
        'router-id': { type: 'string' },
        'sticky-owner-entries': { type: 'string' },
        'quarantine-ms': { type: 'string' },
        'connect-timeout-ms': { type: 'string' },
        'dial-retries': { type: 'string' },
        'max-body-bytes': { type: 'string' },
        drain: { type: 'string' },
        'platform-endpoint': { type: 'string', multiple: true },
        'trusted-proxies': { type: 'string' },
        'log-level': { type: 'string' },
        'otlp-endpoint': { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }).values;
  } catch (err) {
    fail((err as Error).message);
  }
  if (args.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const logLevel = resolveLogLevel(args['log-level'], environment);
  if (!logLevel.ok) fail(logLevel.message);
  const drain = resolveDrainMs(args.drain, environment);
  if (!drain.ok) fail(drain.message);
  const logFormat = resolveLogFormat(environment, process.stderr.isTTY === true);
  if (!logFormat.ok) fail(logFormat.message);
  let registryToken = environment.ORRERY_REGISTRY_TOKEN || undefined;
  // A file of a mounted Secret (what the chart passes): unlike env, it is not in /proc/<pid>/environ.
  if (args['registry-token-file']) {
    try {
      registryToken = readFileSync(args['registry-token-file'], 'utf8').trim();
    } catch (err) {
      fail(`cannot read --registry-token-file: ${(err as Error).message}`);
    }
  }
  registerSecret(registryToken);
  const traceSettings = resolveTraceSettings(args['otlp-endpoint'], environment, 'orrery-router');
  if (!traceSettings.ok) fail(traceSettings.message);
  if (args.ingress !== 'raw' && args.ingress !== 'node') fail(`--ingress must be raw or node, got ${JSON.stringify(args.ingress)}`);
  if (!args['routes-file'] && !args['store-url']) fail("give --store-url (the operator's resource store) or --routes-file");
  if (args['routes-file'] && args['store-url']) fail('--routes-file and --store-url are exclusive: pick one routing source');
  let trustedProxies: TrustedProxies | undefined;
  if (args['trusted-proxies'] !== undefined) {
    try {
      trustedProxies = TrustedProxies.parse(args['trusted-proxies']);
    } catch (err) {
      fail((err as Error).message);
    }
  }
  let storeToken: string | undefined;
  if (args['store-token-file']) {
    try {
      storeToken = readFileSync(args['store-token-file'], 'utf8').trim();
      registerSecret(storeToken);
    } catch (err) {
      fail(`cannot read --store-token-file: ${(err as Error).message}`);
    }
  }

  if (args['tls-port'] !== undefined && !args['tls-certs-dir']) fail('--tls-port needs --tls-certs-dir (the folder of <host>.pem files the operator writes)');
  if (args['tls-certs-dir'] && args['tls-port'] === undefined) fail('--tls-certs-dir needs --tls-port');
  const tls = args['tls-port'] !== undefined ? { port: int('tls-port', args['tls-port'], 0), certsDir: args['tls-certs-dir']! } : undefined;

  const platformEndpoints = (args['platform-endpoint'] ?? []).flatMap((v) => v.split(',')).map((v) => v.trim()).filter(Boolean);
  for (const p of platformEndpoints) if (!parseHostPort(p)) fail(`--platform-endpoint takes HOST, HOST:PORT, [IPv6]:PORT or a URL, got ${JSON.stringify(p)}`);

  const stickyOwnerEntries = int('sticky-owner-entries', args['sticky-owner-entries'], DEFAULT_STICKY_OWNER_ENTRIES, 1);
  // Flags first; otherwise the environment a StateSync on Kubernetes renders into this Deployment.
  const env = (name: string): string | undefined => environment[name] || undefined;
  const flagOrEnvBool = (flag: boolean | undefined, name: string): boolean => {
    if (flag) return true;
    const v = env(name);
    if (v === undefined || v === 'false' || v === '0') return false;
    if (v === 'true' || v === '1') return true;
    return fail(`${name} must be "true" or "false", got ${JSON.stringify(v)}`);
  };
  // ORRERY_REDIS_URL (= STATESYNC_ENV.url, spelled out so the chart's env check sees the read) is the
  // way to pass a URL with a password: --redis-url still works but shows in `ps`.
  const redisUrlGiven = args['redis-url'] ?? (environment.ORRERY_REDIS_URL || undefined);
  registerUrlSecret(redisUrlGiven);
  let sharedTables: RouterConfig['sharedTables'];
  let ignoredSyncables: string[] = [];
  if (redisUrlGiven) {
    const syncPeriod = args['sync-period-ms'] ?? env(STATESYNC_ENV.syncPeriodMs);
    const recordTtl = args['record-ttl-ms'] ?? env(STATESYNC_ENV.recordTtlMs);
    const tls = flagOrEnvBool(args['redis-tls'], STATESYNC_ENV.tls);
    if (tls && !/^rediss?:\/\//.test(redisUrlGiven)) fail('the Redis URL must start with redis:// or rediss://');
    // TLS asked for on a redis:// URL: same host and port over TLS (as the StateSync settings render it).
    const redisUrl = tls ? redisUrlGiven.replace(/^redis:\/\//, 'rediss://') : redisUrlGiven;
    const syncablesRaw = args.syncables ?? env(STATESYNC_ENV.syncables);
    const asked = syncablesRaw === undefined ? [...ROUTER_TABLES] : syncablesRaw.split(',').map((x) => x.trim()).filter(Boolean);
    const known = asked.filter((x): x is RouterTable => (ROUTER_TABLES as readonly string[]).includes(x));
    // Another component's table (e.g. lora-adapters) is not an error: the StateSync status names it.
    ignoredSyncables = asked.filter((x) => !known.includes(x as RouterTable));
    sharedTables = {
      redisUrl,
      keyPrefix: args['redis-key-prefix'] ?? env(STATESYNC_ENV.keyPrefix) ?? 'orrery',
      syncPeriodMs: syncPeriod ? int('sync-period-ms', syncPeriod, 10_000, 1) : undefined,
      recordTtlMs: recordTtl ? int('record-ttl-ms', recordTtl, 120_000, 1000) : undefined,
      syncables: known,
      tlsInsecureSkipVerify: flagOrEnvBool(args['redis-tls-insecure-skip-verify'], STATESYNC_ENV.tlsInsecure),
      stickyOwnerEntries,
    };
  }

  return {
    logLevel: logLevel.value,
    logFormat: logFormat.value,
    drainMs: drain.ms,
    tracing: traceSettings.value,
    sharedTables,
    ignoredSyncables,
    router: {
      host: args.host,
      port: int('port', args.port, 8080),
      adminPort: int('admin-port', args['admin-port'], 9090),
      ingress: args.ingress,
      routesFile: args['routes-file'],
      store: args['store-url'] ? createHttpStore(args['store-url'], { token: storeToken }) : undefined,
      endpointsFile: args['endpoints-file'],
      registryUrl: args['registry-url']?.replace(/\/+$/, ''),
      registryNamespaces: args['registry-namespace'],
      registryToken,
      platformEndpoints: [...platformEndpoints, ...[args['store-url'], redisUrlGiven].filter((u): u is string => !!u)],
      domain: args.domain,
      tls,
      tlsRedirectPort: args['tls-redirect-port'] !== undefined ? int('tls-redirect-port', args['tls-redirect-port'], 443, 1) : undefined,
      queueDepth: int('queue-depth', args['queue-depth'], 10_000, 1),
      autoscalerUrl: args['autoscaler-url']?.replace(/\/+$/, ''),
      // The operator's control endpoints take the token of its store.
      operatorToken: storeToken,
      executorUrl: args['executor-url']?.replace(/\/+$/, ''),
      quarantineMs: int('quarantine-ms', args['quarantine-ms'], 30_000, 1),
      connectTimeoutMs: int('connect-timeout-ms', args['connect-timeout-ms'], 2_000, 1),
      dialRetries: int('dial-retries', args['dial-retries'], 2),
      maxBodyBytes: int('max-body-bytes', args['max-body-bytes'], 64 * 1024 * 1024),
      trustedProxies,
      routerId: args['router-id'] ?? `${hostname()}-${process.pid}`,
      stickyOwnerEntries,
    },
  };
}
