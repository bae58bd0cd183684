/**
 * Config, the first wiring step of `--backend local` (the default): the command line becomes the
 * local operator's settings. Pure: a bad flag throws a UsageError naming it (main.ts prints it
 * with LOCAL_USAGE and exits 2); the flags both backends take are read by wiring/shared-flags.ts.
 */
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { AUTOSCALER_USAGE } from '../../../autoscaler/autoscaler-flags.ts';
import { REVISION_GC_USAGE } from '../../../function/revision-gc-flags.ts';
import { TRIGGER_USAGE } from '../../../trigger/trigger-flags.ts';
import { QUEUE_USAGE } from '../../../trigger/queue/queue-flags.ts';
import { flagCheck, parseFlags, type ParsedCommandLine, UsageError } from '../../../wiring/command-line.ts';
import { readSharedFlags, SHARED_FLAGS, type SharedSettings } from '../../../wiring/shared-flags.ts';
import { parsePassthrough } from '../worker-env.ts';
import { type IsolationMode, parseIsolationMode } from '../worker-isolation.ts';
import { DEFAULT_UID_RANGE, parseUidRange, type UidRange } from '../worker-uid.ts';

export const LOCAL_USAGE = `usage: orrery-operator [--host 127.0.0.1] [--port 0] [--data-dir .orrery] [--database-url URL]
  [--store-token-file FILE] [--registry-url URL[,URL] | --registry-cluster NAMESPACE/NAME[:PORT]] [--state-url URL] [--master-key-file FILE (state tokens; with --state-url also keyspace cleanup)]
  [--registry-master-key-file FILE [--previous-registry-master-key-file FILE] (workers' registration credentials; the
   registry APIs this operator runs get the same files)] [--registry-write-tokens-file FILE] [--require-registry-write-tokens]
  [--router-url URL] [--endpoints-file FILE] [--resync-seconds 30]
  [--statesync-routers 0 (router replicas the operator runs for a StateSync)] [--statesync-router-admin-urls URL,URL (observe routers run elsewhere)]
${AUTOSCALER_USAGE}
${REVISION_GC_USAGE}
${QUEUE_USAGE}
${TRIGGER_USAGE}
  [--pool-size 3 (when no Environment resource sets poolSize)] [--pool-idle-timeout 120s]
  [--worker-start-concurrency N (workers starting at once; default $ORRERY_WORKER_START_CONCURRENCY, else the CPU count; 0 = no limit)]
  [--max-package-bytes 67108864 (largest package archive PUT /v1/packages/ takes)] [--build-timeout-seconds 600 (a package build's longest run)]
  [--admin-token-file FILE (admin API login; absent = users only)] [--users-file FILE (name:role:hash lines, see orrery passwd; re-read on change)] [--router-admin-urls URL,URL (sticky counters)]
  [--trusted-proxies ADDR|CIDR|loopback,… (peers whose X-Forwarded-* the admin API believes: the console, a TLS ingress; default $ORRERY_TRUSTED_PROXIES, else none)]
  [--rollup-interval 10s (sticky and keyspace rollups for the console's history)]
  [--isolate-workers auto|on|off (auto: as root, every function's workers run under their own uid)] [--worker-uid-range ${DEFAULT_UID_RANGE.first}-${DEFAULT_UID_RANGE.last}]
  [--worker-env-passthrough NAME,NAME (variables passed to workers besides PATH, LANG, LC_*, TZ, CA paths, ORRERY_LOG_LEVEL)]
  [--log-level info (trace|debug|info|warn|error|fatal|silent; or ORRERY_LOG_LEVEL; ORRERY_LOG_FORMAT=json|pretty)]
  [--otlp-endpoint http://collector:4318 (reconcile spans over OTLP/HTTP; or OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, OTEL_* as in
   docs/tracing.md; workers trace when OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT is in this operator's environment; default off)]
Without --store-token-file the operator makes <data-dir>/secrets/store.token (0600) and requires it: the store and
the control endpoints take no anonymous caller, not even on loopback.`;

const LOCAL_FLAGS = {
  ...SHARED_FLAGS,
  'data-dir': { type: 'string', default: '.orrery' },
  'registry-cluster': { type: 'string' },
  'endpoints-file': { type: 'string' },
  'resync-seconds': { type: 'string', default: '30' },
  'statesync-routers': { type: 'string', default: '0' },
  'statesync-router-admin-urls': { type: 'string' },
  'pool-size': { type: 'string', default: '3' },
  'worker-start-concurrency': { type: 'string' },
  'isolate-workers': { type: 'string', default: 'auto' },
  'worker-uid-range': { type: 'string' },
  'worker-env-passthrough': { type: 'string' },
  'max-package-bytes': { type: 'string', default: String(64 * 1024 * 1024) },
  'build-timeout-seconds': { type: 'string', default: '600' },
} as const;

export interface LocalConfig extends SharedSettings {
  /** Absolute: the store, the secrets, the workers' directories and the endpoints file live under it. */
  dataDir: string;
  /** A RegistryCluster this operator runs whose registry API workers register at (followed as its endpoint changes), `orrery up`'s way. */
  platformCluster: { key: string; apiPort: number | undefined } | undefined;
  endpointsFile: string | undefined;
  resyncMs: number;
  /** Pool size when no Environment sets poolSize. */
  poolSize: number;
  /** Worker processes starting at once (spawned, not yet listening); 0 = no limit. */
  workerStartConcurrency: number;
  /** Router replicas this operator runs for a StateSync, unless routers run elsewhere are observed (their admin URLs). */
  stateSyncRouters: number;
  observedRouterAdminUrls: string[];
  isolation: { mode: IsolationMode; uidRange: UidRange | undefined };
  envPassthrough: string[];
  /** Package archives (docs/packages.md): the upload's body limit and a build's longest run. */
  packages: { maxArchiveBytes: number; buildTimeoutMs: number };
}

const REGISTRY_CLUSTER = /^([a-z0-9-]+)\/([a-z0-9-]+)(?::(\d+))?$/;

export function parseLocalConfig(args: string[], environment: NodeJS.ProcessEnv): ParsedCommandLine<LocalConfig> {
  const values = parseFlags(args, LOCAL_FLAGS);
  if (values.help) return 'help';
  const isolation = flagCheck(() => ({ mode: parseIsolationMode(values['isolate-workers']), uidRange: values['worker-uid-range'] ? parseUidRange(values['worker-uid-range']) : undefined }));
  const envPassthrough = flagCheck(() => parsePassthrough(values['worker-env-passthrough']));
  const shared = readSharedFlags(values, environment);
  const cluster = values['registry-cluster'] ? REGISTRY_CLUSTER.exec(values['registry-cluster']) : undefined;
  if (cluster === null) throw new UsageError('--registry-cluster takes NAMESPACE/NAME or NAMESPACE/NAME:PORT');
  const poolSize = Number(values['pool-size']);
  if (!Number.isInteger(poolSize) || poolSize < 0) throw new UsageError('--pool-size must be an integer ≥ 0 and --pool-idle-timeout a duration like "120s"');
  const startFlag = values['worker-start-concurrency'] ?? environment.ORRERY_WORKER_START_CONCURRENCY;
  const workerStartConcurrency = startFlag === undefined || startFlag === '' ? availableParallelism() : Number(startFlag);
  if (!Number.isInteger(workerStartConcurrency) || workerStartConcurrency < 0) throw new UsageError('--worker-start-concurrency must be an integer ≥ 0 (0 = no limit)');
  const maxArchiveBytes = Number(values['max-package-bytes']);
  if (!Number.isInteger(maxArchiveBytes) || maxArchiveBytes < 1024) throw new UsageError('--max-package-bytes must be a whole number of bytes, at least 1024');
  const buildTimeoutSeconds = Number(values['build-timeout-seconds']);
  if (!Number.isInteger(buildTimeoutSeconds) || buildTimeoutSeconds < 1) throw new UsageError('--build-timeout-seconds must be a whole number of seconds, at least 1');
  const absolute = (file: string | undefined) => (file ? resolve(file) : undefined);
  return {
    ...shared,
    storeTokenFile: absolute(shared.storeTokenFile),
    registryAuth: { ...shared.registryAuth, masterKeyFile: absolute(shared.registryAuth.masterKeyFile), previousMasterKeyFile: absolute(shared.registryAuth.previousMasterKeyFile), writeTokensFile: absolute(shared.registryAuth.writeTokensFile) },
    dataDir: resolve(values['data-dir']),
    platformCluster: cluster ? { key: `${cluster[1]}/${cluster[2]}`, apiPort: cluster[3] ? Number(cluster[3]) : undefined } : undefined,
    endpointsFile: absolute(values['endpoints-file']),
    resyncMs: Number(values['resync-seconds']) * 1000,
    poolSize,
    workerStartConcurrency,
    stateSyncRouters: Number(values['statesync-routers']) || 0,
    observedRouterAdminUrls: (values['statesync-router-admin-urls'] ?? '').split(',').filter(Boolean),
    isolation,
    envPassthrough,
    packages: { maxArchiveBytes, buildTimeoutMs: buildTimeoutSeconds * 1000 },
  };
}
