import { parseArgs } from 'node:util';
import { resolveLogLevel, type LogLevel } from '@orrery/log';
import { resolveTraceSettings, type TraceSettings } from '@orrery/tracing';
import type { FunctionSource } from './load/function-source.ts';

/** Everything a worker needs at start, from flags with `ORRERY_*` environment fallbacks. */
export interface RuntimeConfig {
  mode: 'deploy' | 'pool';
  host: string;
  port: number;
  /** Runtime routes (/healthz, /readyz, /v1/*) on their own port; undefined = on the main port. */
  adminPort?: number;
  /** Host written into the registry; default: the bind host, or this machine's address when binding a wildcard. */
  advertiseHost?: string;
  namespace: string;
  function?: string;
  revision?: string;
  source?: FunctionSource;
  entrypoint: string;
  containerConcurrency: number;
  timeoutSeconds: number;
  drainTimeoutSeconds: number;
  maxRequestBytes: number;
  maxSourceBytes: number;
  registryUrls: string[];
  leaseTtlSeconds: number;
  instanceId?: string;
  stateUrl?: string;
  stateKeyspace?: string;
  /** From the environment only (never a flag: flags show in `ps`). Never log it. */
  stateToken?: string;
  /**
   * Where the state token is read at start instead (a mounted Kubernetes Secret): JSON
   * `{namespace, keyspace, token}` as the operator renders it, or a bare token.
   */
  stateTokenFile?: string;
  /** --state-fencing on: ctx.state claims keys and sends their fences (spec.state.fencing). */
  stateFencing: boolean;
  /**
   * Pool mode: the file holding the verifier (SHA-256, hex) of this worker's single-use specialize
   * nonce (Kubernetes: written by the pool pod's init container). Removed once the nonce is used.
   */
  specializeVerifierFile?: string;
  /** Pool mode: the verifier from the environment, ORRERY_SPECIALIZE_VERIFIER (local backend). */
  specializeVerifier?: string;
  /**
   * Deploy mode: the revision's registration credential (registry writes under
   * `orrery.functions.`), from ORRERY_REGISTRY_CREDENTIAL only (never a flag: flags show in
   * `ps`). Never log it.
   */
  registryCredential?: string;
  /** Or the file holding it as `{namespace, service, token}` (a mounted Kubernetes Secret). */
  registryCredentialFile?: string;
  workDir?: string;
  /** `--log-level` / ORRERY_LOG_LEVEL (default info). */
  logLevel: LogLevel;
  /** `--otlp-endpoint` and the OTEL_* environment (docs/tracing.md); off unless an endpoint is set. */
  tracing: TraceSettings;
  /**
   * `--exit-with-parent PID`: drain and exit, as on SIGTERM, once PID is no longer this process's
   * parent (it died and the worker was handed to init). The local operator sets it, so a worker
   * never outlives an operator that was killed before it could stop its workers.
   */
  exitWithParent?: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const USAGE = `usage: orrery-runtime [--mode deploy|pool] [--host H] [--port P] [--admin-port P]
  deploy mode: --function F --revision R (--source-file PATH | --source-inline CODE | --source-url URL | --source-dir DIR [--source-main PATH])
  [--namespace NS] [--entrypoint NAME] [--container-concurrency N] [--timeout-seconds S]
  [--drain-timeout-seconds S] [--registry-url URL[,URL…]] [--lease-ttl-seconds S] [--instance-id ID]
  [--state-url URL --state-keyspace KS  (token in env ORRERY_STATE_TOKEN, or --state-token-file FILE)]
  [--state-fencing on|off  (default off: ctx.state claims each key before its first write and sends its fence)]
  [--work-dir DIR] [--advertise-host H] [--max-request-bytes N] [--max-source-bytes N]
  [--registry-credential-file FILE  (or env ORRERY_REGISTRY_CREDENTIAL: the revision's registration credential)]
  pool mode: --specialize-verifier-file FILE  (or env ORRERY_SPECIALIZE_VERIFIER): SHA-256 of the single-use
  nonce POST /v1/specialize must carry as Authorization: Bearer <nonce>; without it nobody can specialize the worker
  (pool workers get their registration credential with POST /v1/specialize)
  [--log-level trace|debug|info|warn|error|fatal|silent (default info; ORRERY_LOG_FORMAT=json|pretty)]
  [--exit-with-parent PID  (drain and exit as on SIGTERM once PID is no longer this process's parent; the local operator sets it)]
  [--otlp-endpoint http://collector:4318 (OpenTelemetry traces over OTLP/HTTP; or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
   OTEL_EXPORTER_OTLP_ENDPOINT; OTEL_SERVICE_NAME, OTEL_TRACES_SAMPLER[_ARG], OTEL_SDK_DISABLED; default off: docs/tracing.md)]
Every flag falls back to ORRERY_<FLAG_IN_UPPER_SNAKE_CASE>, e.g. ORRERY_TIMEOUT_SECONDS.`;

const STRING_FLAGS = [
  'mode', 'host', 'port', 'admin-port', 'advertise-host', 'namespace', 'function', 'revision',
  'source-file', 'source-inline', 'source-url', 'source-dir', 'source-main', 'entrypoint', 'container-concurrency', 'timeout-seconds',
  'drain-timeout-seconds', 'max-request-bytes', 'max-source-bytes', 'registry-url', 'lease-ttl-seconds',
  'instance-id', 'state-url', 'state-keyspace', 'state-token-file', 'state-fencing', 'specialize-verifier-file', 'specialize-token-file', 'work-dir',
  'registry-credential-file', 'log-level', 'otlp-endpoint', 'exit-with-parent',
] as const;
type Flag = (typeof STRING_FLAGS)[number];

const envName = (flag: string) => `ORRERY_${flag.toUpperCase().replaceAll('-', '_')}`;

export function parseRuntimeConfig(argv: string[], env: Record<string, string | undefined> = process.env): RuntimeConfig {
  let values: Partial<Record<Flag, string>>;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: Object.fromEntries(STRING_FLAGS.map((f) => [f, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
    }) as { values: Partial<Record<Flag, string>> });
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  const get = (f: Flag): string | undefined => {
    const v = values[f] ?? env[envName(f)];
    return v === undefined || v === '' ? undefined : v;
  };
  const int = (f: Flag, dflt: number, min = 0): number => {
    const raw = get(f);
    if (raw === undefined) return dflt;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min) throw new ConfigError(`--${f} must be an integer ≥ ${min}, got "${raw}"`);
    return n;
  };
  const port = (f: Flag, dflt?: number): number | undefined => {
    const n = get(f) === undefined ? dflt : int(f, 0);
    if (n !== undefined && n > 65535) throw new ConfigError(`--${f} must be a port number (0 picks a free one), got ${n}`);
    return n;
  };

  const onOff = (f: Flag): boolean => {
    const raw = get(f);
    if (raw === undefined || raw === 'off') return false;
    if (raw === 'on') return true;
    throw new ConfigError(`--${f} must be on or off, got "${raw}"`);
  };

  const mode = get('mode') ?? 'deploy';
  if (mode !== 'deploy' && mode !== 'pool') throw new ConfigError(`--mode must be deploy or pool, got "${mode}"`);

  const sources = (['source-file', 'source-inline', 'source-url', 'source-dir'] as const).filter((f) => get(f) !== undefined);
  if (sources.length > 1) throw new ConfigError(`give only one of --source-file, --source-inline, --source-url, --source-dir (got ${sources.map((s) => `--${s}`).join(', ')})`);
  if (get('source-main') !== undefined && get('source-dir') === undefined) throw new ConfigError('--source-main goes with --source-dir: it names the module inside the package folder');
  const source: FunctionSource | undefined = sources.length
    ? { file: get('source-file'), inline: get('source-inline'), url: get('source-url'), dir: get('source-dir'), main: get('source-main') }
    : undefined;
  if (source) for (const k of Object.keys(source) as (keyof FunctionSource)[]) if (source[k] === undefined) delete source[k];

  const timeoutSeconds = int('timeout-seconds', 300, 1);
  const logLevel = resolveLogLevel(get('log-level'), {});
  if (!logLevel.ok) throw new ConfigError(logLevel.message);
  const tracing = resolveTraceSettings(get('otlp-endpoint'), env, 'orrery-runtime');
  if (!tracing.ok) throw new ConfigError(tracing.message);
  const cfg: RuntimeConfig = {
    mode,
    host: get('host') ?? '127.0.0.1',
    port: port('port', 8080)!,
    adminPort: port('admin-port'),
    advertiseHost: get('advertise-host'),
    namespace: get('namespace') ?? 'default',
    function: get('function'),
    revision: get('revision'),
    source,
    entrypoint: get('entrypoint') ?? 'default',
    containerConcurrency: int('container-concurrency', 0),
    timeoutSeconds,
    drainTimeoutSeconds: int('drain-timeout-seconds', timeoutSeconds, 0),
    maxRequestBytes: int('max-request-bytes', 64 * 1024 * 1024, 1),
    maxSourceBytes: int('max-source-bytes', 8 * 1024 * 1024, 1),
    registryUrls: (get('registry-url') ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    leaseTtlSeconds: int('lease-ttl-seconds', 30, 1),
    instanceId: get('instance-id'),
    stateUrl: get('state-url'),
    stateKeyspace: get('state-keyspace'),
    stateToken: env.ORRERY_STATE_TOKEN || undefined,
    stateTokenFile: get('state-token-file'),
    stateFencing: onOff('state-fencing'),
    specializeVerifierFile: get('specialize-verifier-file'),
    specializeVerifier: env.ORRERY_SPECIALIZE_VERIFIER || undefined,
    registryCredential: env.ORRERY_REGISTRY_CREDENTIAL || undefined,
    registryCredentialFile: get('registry-credential-file'),
    workDir: get('work-dir'),
    logLevel: logLevel.value,
    tracing: tracing.value,
    exitWithParent: get('exit-with-parent') === undefined ? undefined : int('exit-with-parent', 0, 1),
  };
  if (cfg.exitWithParent === undefined) delete cfg.exitWithParent;

  if (mode === 'deploy') {
    const missing = [!cfg.function && '--function', !cfg.revision && '--revision', !cfg.source && 'a source (--source-file, --source-inline, --source-url or --source-dir)'].filter(Boolean);
    if (missing.length) throw new ConfigError(`deploy mode needs ${missing.join(', ')}`);
  } else if (cfg.source || cfg.function || cfg.revision) {
    throw new ConfigError('pool mode starts generic: the function, revision and source arrive with POST /v1/specialize');
  }
  if (cfg.stateFencing && cfg.stateKeyspace === undefined) {
    throw new ConfigError(mode === 'pool' ? 'pool mode learns fencing at specialize (stateFencing), not at start' : '--state-fencing on needs --state-keyspace: fencing is for the function\'s keyspace');
  }
  if (cfg.stateKeyspace !== undefined) {
    if (mode === 'pool') throw new ConfigError('pool mode receives state credentials at specialize, not at start');
    if (!cfg.stateUrl) throw new ConfigError('--state-keyspace needs --state-url (or ORRERY_STATE_URL)');
    if (cfg.stateToken && cfg.stateTokenFile) throw new ConfigError('give the state token one way: ORRERY_STATE_TOKEN or --state-token-file, not both');
    if (!cfg.stateToken && !cfg.stateTokenFile) throw new ConfigError('--state-keyspace needs the token: --state-token-file FILE, or the environment variable ORRERY_STATE_TOKEN');
  } else if (mode === 'deploy' && (cfg.stateToken || cfg.stateTokenFile)) {
    const what = cfg.stateToken ? 'ORRERY_STATE_TOKEN is set' : '--state-token-file is given';
    throw new ConfigError(`${what} but no --state-keyspace (or ORRERY_STATE_KEYSPACE): say which keyspace the token is for`);
  }
  if (mode === 'pool' && cfg.stateTokenFile) throw new ConfigError('pool mode receives state credentials at specialize, not at start (no --state-token-file)');
  if (cfg.registryCredential && cfg.registryCredentialFile) throw new ConfigError('give the registry credential one way: ORRERY_REGISTRY_CREDENTIAL or --registry-credential-file, not both');
  if (mode === 'pool' && (cfg.registryCredential || cfg.registryCredentialFile)) {
    throw new ConfigError('pool mode receives its registry credential at specialize, not at start (no ORRERY_REGISTRY_CREDENTIAL or --registry-credential-file)');
  }
  if (get('specialize-token-file') !== undefined) {
    throw new ConfigError('--specialize-token-file (one token shared by the whole pool) is gone: pool workers take --specialize-verifier-file FILE or ORRERY_SPECIALIZE_VERIFIER, the SHA-256 of their own single-use nonce');
  }
  if (cfg.specializeVerifier && cfg.specializeVerifierFile) throw new ConfigError('give the specialize verifier one way: ORRERY_SPECIALIZE_VERIFIER or --specialize-verifier-file, not both');
  if (mode === 'deploy' && (cfg.specializeVerifierFile || cfg.specializeVerifier)) {
    throw new ConfigError('the specialize verifier (--specialize-verifier-file, ORRERY_SPECIALIZE_VERIFIER) is for pool mode: deploy workers cannot be specialized');
  }
  return cfg;
}
