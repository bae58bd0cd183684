/**
 * orrery-statesvc: the scoped state HTTP API for functions (RFC-0023).
 * Prints `listening http://HOST:PORT` once ready.
 */
import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { parseArgs } from 'node:util';
import { readMasterKeyFile } from '@orrery/auth';
import { createLogger, messageLog, registerSecret, registerUrlSecret, resolveLogFormat, resolveLogLevel } from '@orrery/log';
import { DEFAULT_IDEMPOTENCY_RETENTION_MS, STATE_DRIVERS, isStateDriverName, parseDurationMs, resolveDrainMs } from '@orrery/spec';
import { openDriver, type StateDriver } from '@orrery/statestore';
import { createHttpStore } from '@orrery/store';
import { endpointForLog, resolveTraceSettings, startTracing } from '@orrery/tracing';
import { errorDetail } from './error-log.ts';
import { loadKeyspacesFile, type KeyspaceTable } from './keyspaces.ts';
import { StateMetrics } from './metrics.ts';
import { DEFAULT_CHANGES_HEARTBEAT_MS, DEFAULT_CHANGES_MAX_STREAMS, startStateServer, type StateHttpIngress } from './server.ts';
import { mergeKeyspaces, watchStoreKeyspaces, type StoreKeyspaceSource } from './store-keyspaces.ts';
import { afterCommitHook, resolveTestFailPoint } from './test-fail-point.ts';

const USAGE = `usage: orrery-statesvc [--port 0] [--host 127.0.0.1] [--driver ${STATE_DRIVERS.join('|')}] [--database-url URL] [--data-dir DIR]
  (--master-key-file FILE [--previous-master-key-file FILE] | --insecure-pass-through)
  [--keyspaces-file FILE] [--store-url URL [--store-token-file FILE]] [--namespace-byte-budget BYTES] [--max-body-bytes BYTES] [--sweep-interval 30s]
  [--idempotency-retention 24h (how long an Idempotency-Key's outcome is kept when the keyspace's spec.state.idempotencyRetention says nothing)] [--drain DURATION (after SIGTERM keep serving this long, each answer saying Connection: close; default 5s in a pod, else 0s)] [--pool-size 10 (postgres connections in all)] [--read-batching on|off] [--write-batching on|off] (postgres: concurrent GETs of a keyspace share one statement once 8 are in flight, concurrent overwrites one transaction; default on)
  [--http-ingress raw|node (raw: state-key requests on the raw HTTP/1.1 ingress, the rest on node:http; node: all on node:http; default raw)]
  [--changes-retention 10m] [--changes-retention-events 10000] (change feed window per keyspace: changes older than the
   first or beyond the newest N are pruned by the sweeper; 0 = no such bound) [--changes-max-streams 100 (per keyspace)] [--changes-heartbeat 15s]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (OpenTelemetry traces over OTLP/HTTP; or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
   OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER[_ARG], OTEL_SDK_DISABLED; default off: docs/tracing.md)]
  --data-dir DIR  memory driver: keep state across restarts in DIR/memory-state.journal (one statesvc per DIR;
                  without it the memory driver loses everything on exit); postgres driver: the PGlite directory`;

function fail(msg: string): never {
  console.error(`orrery-statesvc: ${msg}\n${USAGE}`);
  process.exit(2);
}

function nonNegativeInt(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value)) fail(`--${name} must be a non-negative integer`);
  return Number(value);
}

function httpIngressOf(value: string): StateHttpIngress {
  if (value !== 'raw' && value !== 'node') fail('--http-ingress must be raw or node');
  return value;
}

function onOff(name: string, value: string): boolean {
  if (value !== 'on' && value !== 'off') fail(`--${name} must be on or off`);
  return value === 'on';
}

let args;
try {
  args = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      host: { type: 'string', default: '127.0.0.1' },
      driver: { type: 'string', default: 'memory' },
      'database-url': { type: 'string' },
      'data-dir': { type: 'string' },
      'master-key-file': { type: 'string' },
      'previous-master-key-file': { type: 'string' },
      'keyspaces-file': { type: 'string' },
      'store-url': { type: 'string' },
      'store-token-file': { type: 'string' },
      'namespace-byte-budget': { type: 'string' },
      'max-body-bytes': { type: 'string' },
      'sweep-interval': { type: 'string', default: '30s' },
      'changes-retention': { type: 'string', default: '10m' },
      'changes-retention-events': { type: 'string', default: '10000' },
      'changes-max-streams': { type: 'string' },
      'changes-heartbeat': { type: 'string' },
      'idempotency-retention': { type: 'string' },
      // Tests only (test-fail-point.ts): refused unless ORRERY_TEST_FAIL_POINTS=1; not in the usage text.
      'test-fail-point': { type: 'string' },
      drain: { type: 'string' },
      'pool-size': { type: 'string' },
      'read-batching': { type: 'string', default: 'on' },
      'write-batching': { type: 'string', default: 'on' },
      'http-ingress': { type: 'string', default: 'raw' },
      'insecure-pass-through': { type: 'boolean', default: false },
      'log-level': { type: 'string' },
      'otlp-endpoint': { type: 'string' },
      help: { type: 'boolean', default: false },
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
const logLevel = resolveLogLevel(args['log-level'], process.env);
if (!logLevel.ok) fail(logLevel.message);
const logFormat = resolveLogFormat(process.env, process.stderr.isTTY === true);
if (!logFormat.ok) fail(logFormat.message);
const logger = createLogger({ component: 'statesvc', level: logLevel.value, format: logFormat.value });
const log = messageLog(logger);
const traceSettings = resolveTraceSettings(args['otlp-endpoint'], process.env, 'orrery-statesvc');
if (!traceSettings.ok) fail(traceSettings.message);
// Known before anything can log them: the database password, wherever the URL came from.
registerUrlSecret(args['database-url']);
registerUrlSecret(process.env.DATABASE_URL);

const driverName = args.driver;
if (!isStateDriverName(driverName)) fail(`--driver must be one of ${STATE_DRIVERS.join(', ')}`);
const port = nonNegativeInt('port', args.port, 8080);
const sweepMs = parseDurationMs(args['sweep-interval']);
if (!Number.isFinite(sweepMs) || sweepMs < 100) fail('--sweep-interval must be a duration of at least 100ms, e.g. 30s');
const idempotencyRetentionMs = args['idempotency-retention'] === undefined ? DEFAULT_IDEMPOTENCY_RETENTION_MS : parseDurationMs(args['idempotency-retention']);
if (!Number.isFinite(idempotencyRetentionMs) || idempotencyRetentionMs < 1000) fail('--idempotency-retention must be a duration of at least 1s, e.g. 24h');
const failPoint = resolveTestFailPoint(args['test-fail-point'], process.env);
if (!failPoint.ok) fail(failPoint.message);
const changesRetentionMs = parseDurationMs(args['changes-retention']);
if (!Number.isFinite(changesRetentionMs)) fail('--changes-retention must be a duration, e.g. 10m (0 = no age bound)');
const changeRetention = { maxAgeMs: changesRetentionMs, maxEvents: nonNegativeInt('changes-retention-events', args['changes-retention-events'], 10_000) };
const changesMaxStreams = nonNegativeInt('changes-max-streams', args['changes-max-streams'], DEFAULT_CHANGES_MAX_STREAMS);
if (changesMaxStreams < 1) fail('--changes-max-streams must be at least 1');
const changesHeartbeatMs = args['changes-heartbeat'] === undefined ? DEFAULT_CHANGES_HEARTBEAT_MS : parseDurationMs(args['changes-heartbeat']);
if (!Number.isFinite(changesHeartbeatMs) || changesHeartbeatMs < 100) fail('--changes-heartbeat must be a duration of at least 100ms, e.g. 15s');
const drain = resolveDrainMs(args.drain, process.env);
if (!drain.ok) fail(drain.message);
const drainMs = drain.ms;

const masterKeys: Buffer[] = [];
try {
  if (args['master-key-file']) masterKeys.push(readMasterKeyFile(args['master-key-file']));
  if (args['previous-master-key-file']) {
    if (!args['master-key-file']) fail('--previous-master-key-file needs --master-key-file (the new key)');
    masterKeys.push(readMasterKeyFile(args['previous-master-key-file']));
  }
} catch (err) {
  fail((err as Error).message);
}
for (const key of masterKeys) registerSecret(key.toString('hex'));
const passThrough = args['insecure-pass-through'];
if (passThrough && masterKeys.length > 0) fail('--insecure-pass-through cannot be combined with a master key');
if (!passThrough && masterKeys.length === 0) fail('give --master-key-file (production) or --insecure-pass-through (local development only)');
if (passThrough) log('WARNING: --insecure-pass-through: any bearer token is accepted for any declared keyspace. Never use this outside local development.', 'warn');
if (failPoint.point) log(`WARNING: --test-fail-point ${failPoint.point}: this statesvc kills itself on purpose (SIGKILL after the first write commits). Tests only.`, 'warn');

let keyspaces: KeyspaceTable = new Map();
// Declarations are the union of the keyspaces file and the store's stateful Functions.
let fileKeyspaces: KeyspaceTable = new Map();
let storeKeyspaces: KeyspaceTable = new Map();
const keyspacesFile = args['keyspaces-file'];
const reloadKeyspaces = (initial: boolean) => {
  if (!keyspacesFile) return;
  try {
    fileKeyspaces = loadKeyspacesFile(keyspacesFile);
    keyspaces = mergeKeyspaces(fileKeyspaces, storeKeyspaces);
    if (!initial) log(`reloaded ${keyspaces.size} keyspace declaration(s) from ${keyspacesFile}`);
  } catch (err) {
    if (initial) fail((err as Error).message);
    log(`keeping the previous keyspace declarations: ${(err as Error).message}`, 'warn');
  }
};
reloadKeyspaces(true);
let storeSource: StoreKeyspaceSource | undefined;
// Only a store source starts unsynced: a keyspaces file is read (or start-up fails) before listening.
let storeSynced = true;
if (args['store-url']) {
  let token: string | undefined;
  try {
    token = args['store-token-file'] ? readFileSync(args['store-token-file'], 'utf8').trim() : undefined;
    registerSecret(token);
  } catch (err) {
    fail(`cannot read --store-token-file: ${(err as Error).message}`);
  }
  let errors = 0;
  let lastSignature = '';
  storeSynced = false;
  storeSource = watchStoreKeyspaces(
    createHttpStore(args['store-url'], { token }),
    (t) => {
      storeKeyspaces = t;
      storeSynced = true;
      keyspaces = mergeKeyspaces(fileKeyspaces, storeKeyspaces);
      // Function status updates re-deliver the same declarations: log only real changes.
      const signature = JSON.stringify([...t.values()]);
      if (signature !== lastSignature) log(`${t.size} keyspace declaration(s) from the resource store`);
      lastSignature = signature;
    },
    (err) => {
      if (errors++ % 30 === 0) log(`resource store: ${(err as Error).message} (keeping the last declarations)`, 'warn');
    },
  );
  // Answer with the store's declarations from the first request when the store is up; if it is
  // not, listen anyway: /readyz says 503 (and undeclared keyspaces 503, not 403) until the first sync.
  await Promise.race([storeSource.ready, new Promise((r) => setTimeout(r, 5_000).unref())]);
}
if (!keyspacesFile && !storeSource) log('no --keyspaces-file or --store-url: every keyspace is undeclared, state requests will be refused with 403', 'warn');

let driver: StateDriver;
try {
  driver = await openDriver({
    driver: driverName,
    // The environment is the way to pass a URL with a password (argv is public in `ps`).
    databaseUrl: args['database-url'] ?? (process.env.DATABASE_URL || undefined),
    dataDir: args['data-dir'],
    log,
    poolSize: args['pool-size'] === undefined ? undefined : nonNegativeInt('pool-size', args['pool-size'], 10),
    batchReads: onOff('read-batching', args['read-batching']),
    batchWrites: onOff('write-batching', args['write-batching']),
  });
} catch (err) {
  console.error(`orrery-statesvc: cannot open the ${driverName} driver: ${errorDetail(err)}`);
  process.exit(1);
}

const tracing = traceSettings.value.enabled ? await startTracing(traceSettings.value) : undefined;
if (tracing) log(`tracing: spans go to ${endpointForLog(tracing.endpoint)} as ${tracing.serviceName}`);

const server = await startStateServer({
  driver,
  keyspaces: () => keyspaces,
  keyspacesSynced: () => storeSynced,
  masterKeys,
  passThrough,
  namespaceByteBudget: nonNegativeInt('namespace-byte-budget', args['namespace-byte-budget'], 0),
  maxBodyBytes: nonNegativeInt('max-body-bytes', args['max-body-bytes'], 1024 * 1024),
  metrics: new StateMetrics({ defaultMetrics: true }),
  host: args.host,
  port,
  log,
  tracer: tracing?.tracer,
  idempotencyRetentionMs,
  afterCommit: afterCommitHook(failPoint.point),
  changesMaxStreams,
  changesHeartbeatMs,
  changeRetention,
  httpIngress: httpIngressOf(args['http-ingress']),
});
if (changeRetention.maxAgeMs === 0 && changeRetention.maxEvents === 0) log('--changes-retention 0 and --changes-retention-events 0: the change feed keeps every change forever', 'warn');

if (keyspacesFile) watchFile(keyspacesFile, { interval: 1000 }, () => reloadKeyspaces(false));
process.on('SIGHUP', () => reloadKeyspaces(false));

let sweeping = false;
const sweeper = setInterval(() => {
  if (sweeping) return;
  sweeping = true;
  // Expired keys first (their `expire` changes), then the change feed's retention.
  driver
    .sweepExpired()
    .catch((err: unknown) => log(`sweep failed: ${errorDetail(err)}`, 'error'))
    .then(() => driver.pruneChanges(changeRetention))
    .catch((err: unknown) => log(`change feed pruning failed: ${errorDetail(err)}`, 'error'))
    .finally(() => {
      sweeping = false;
    });
}, sweepMs);
sweeper.unref();

console.log(`listening ${server.url}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: shutting down`);
  clearInterval(sweeper);
  storeSource?.stop();
  if (keyspacesFile) unwatchFile(keyspacesFile);
  const force = setTimeout(() => process.exit(1), drainMs + 10_000);
  force.unref();
  await server.close({ drainMs });
  await tracing?.shutdown();
  await driver.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));
