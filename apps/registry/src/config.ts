import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { parseMasterKey } from '@orrery/auth';
import { resolveLogLevel, type LogLevel } from '@orrery/log';
import { parseDurationMs } from '@orrery/spec';
import { loadWriteTokens } from './auth/write-tokens-config.ts';
import type { WriteToken } from './auth/write-scope.ts';
import { DEFAULT_WATCH_LIMITS, type WatchLimits } from './auth/watch-limits.ts';
import { parseTargetsFile, type ReplicationTarget } from './replication/targets-file.ts';

export interface HostPort {
  host: string;
  port: number;
}

export interface RegistryConfig {
  httpAddr: HostPort;
  adminAddr: HostPort;
  adminToken: string;
  replicationToken: string;
  prometheusSdToken: string;
  etcdEndpoints: string[];
  dialTimeoutMs: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
  cleanupIntervalMs: number;
  cleanupDeleteLimit: number;
  /** etcd key prefix for everything the registry stores. */
  prefix: string;
  /** Labels for Prometheus SD targets (the seed's `region` and `cluster_id`). */
  region: string;
  clusterId: string;
  /** Other regions' registries to follow (`[replication] targets_file`; replication/). */
  replicationTargets: ReplicationTarget[];
  /**
   * Registry master keys (current first, then the previous one during a rotation): writes under
   * `orrery.functions.` need a registration credential derived from one. None = every such write
   * is refused.
   */
  registryMasterKeys: Buffer[];
  /** Scoped write tokens for services outside `orrery.functions.`. */
  writeTokens: WriteToken[];
  /** Write tokens are required even when none is configured (no open registration). */
  requireWriteTokens: boolean;
  watchLimits: WatchLimits;
  /** Puts of concurrent registrations share one etcd txn (etcd/put-batcher.ts); default on. */
  writeBatching: boolean;
  /** `--log-level` or ORRERY_LOG_LEVEL (default info). */
  logLevel?: LogLevel;
}

/** `checkOnly`: --check-config — validate the settings, say so and exit, start nothing. */
export type ConfigResult = { ok: true; config: RegistryConfig; checkOnly?: boolean } | { ok: false; message: string };

export const USAGE = `usage: orrery-registry [--config registry.toml] [flags]

Every setting below comes from a flag or the TOML file (flags win); one missing from both stops
start-up with a message naming each missing field (the seed's rule). Tokens may also come from
the environment, which keeps them out of \`ps\`.
  --http-addr HOST:PORT         [server] http_addr   (public API; port 0 picks a free port)
  --admin-addr HOST:PORT        [server] admin_addr  (admin API; loopback only)
  --port N / --admin-port N     shorthand for 127.0.0.1:N as the two addresses above
  --etcd-endpoints URL,URL      [etcd] endpoints
  --admin-token T               [auth] admin_token          (or ORRERY_REGISTRY_ADMIN_TOKEN)
  --replication-token T         [auth] replication_token    (or ORRERY_REGISTRY_REPLICATION_TOKEN)
  --prometheus-sd-token T       [auth] prometheus_sd_token  (or ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN)
  --region R                    [node] region      (Prometheus SD label "region")
  --cluster-id C                [node] cluster_id  (Prometheus SD label "cluster_id")
  --request-timeout D           [runtime] request_timeout (e.g. 5s)
  --shutdown-timeout D          [runtime] shutdown_timeout (e.g. 10s)
  --registry-cleanup-interval D       [registry] cleanup_interval (e.g. 1s; alias --cleanup-interval)
  --registry-cleanup-delete-limit N   [registry] cleanup_delete_limit (e.g. 128; alias --cleanup-delete-limit)
  --check-config                check the settings, print "config ok {…}" (no secrets), exit
  --log-level L                 trace|debug|info|warn|error|fatal|silent (or ORRERY_LOG_LEVEL; default info;
                                ORRERY_LOG_FORMAT=json|pretty)
Orrery's own settings (not in the seed), optional (default):
  --dial-timeout D              [etcd] dial_timeout (5s)
  --prefix P                    [etcd] prefix (/orrery/registry)
  --write-batching on|off       [etcd] write_batching (on: the puts of registrations that arrive
                                while earlier ones are in flight commit together, one txn)
write credentials (docs/registry.md "Write credentials"; files, so no secret is on the command line):
  --registry-master-key-file F  [auth] registry_master_key_file (hex; without it every write
                                under orrery.functions. is refused)
  --previous-registry-master-key-file F  [auth] previous_registry_master_key_file (rotation)
  --write-tokens-file F         [auth] write_tokens_file ([[write_tokens]] tables; also
                                [[auth.write_tokens]] in the config file)
  --require-write-tokens        [auth] require_write_tokens (false: with no write token
                                configured, other services register without one, as in the seed)
  --replication-targets-file F  [replication] targets_file (none: no other region is followed;
                                JSON, docs/registry.md "Cross-region replication")
  --max-watches N               [registry] max_watches (${DEFAULT_WATCH_LIMITS.maxWatches}; 0 = no cap)
  --max-watches-per-client N    [registry] max_watches_per_client (${DEFAULT_WATCH_LIMITS.maxWatchesPerClient}; 0 = no cap)`;

const FLAGS = {
  config: { type: 'string' },
  'http-addr': { type: 'string' },
  'admin-addr': { type: 'string' },
  port: { type: 'string' },
  'admin-port': { type: 'string' },
  'etcd-endpoints': { type: 'string' },
  'dial-timeout': { type: 'string' },
  prefix: { type: 'string' },
  'write-batching': { type: 'string' },
  'admin-token': { type: 'string' },
  'replication-token': { type: 'string' },
  'prometheus-sd-token': { type: 'string' },
  'request-timeout': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'registry-cleanup-interval': { type: 'string' },
  'registry-cleanup-delete-limit': { type: 'string' },
  region: { type: 'string' },
  'cluster-id': { type: 'string' },
  'registry-master-key-file': { type: 'string' },
  'previous-registry-master-key-file': { type: 'string' },
  'write-tokens-file': { type: 'string' },
  'require-write-tokens': { type: 'boolean' },
  'replication-targets-file': { type: 'string' },
  'max-watches': { type: 'string' },
  'max-watches-per-client': { type: 'string' },
  'check-config': { type: 'boolean' },
  'log-level': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/**
 * Flag names from before the seed's spelling, kept working (the seed does not forbid them): each
 * is read as the seed's name, so whichever of the two comes last on the command line wins, as
 * for any repeated flag.
 */
export const FLAG_ALIASES: Readonly<Record<string, string>> = {
  'cleanup-interval': 'registry-cleanup-interval',
  'cleanup-delete-limit': 'registry-cleanup-delete-limit',
};

function resolveAliases(argv: string[]): string[] {
  return argv.map((arg) => {
    const m = /^--([a-z-]+)(=.*)?$/s.exec(arg);
    const to = m ? FLAG_ALIASES[m[1]!] : undefined;
    return to ? `--${to}${m![2] ?? ''}` : arg;
  });
}

type Table = Record<string, unknown>;

function section(doc: Table, name: string): Table {
  const v = doc[name];
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Table) : {};
}

function str(v: unknown): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v === 'number') return String(v);
  return typeof v === 'string' ? v : undefined;
}

export function parseHostPort(value: string, what: string): HostPort | string {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(value.trim());
  if (!m) return `${what} must look like HOST:PORT (e.g. 127.0.0.1:8080), got "${value}"`;
  const host = m[1] ?? (m[2] || '0.0.0.0');
  const port = Number(m[3]);
  if (port > 65535) return `${what} port must be at most 65535`;
  return { host, port };
}

function bool(v: unknown): boolean | undefined | 'bad' {
  if (v === undefined) return undefined;
  return typeof v === 'boolean' ? v : 'bad';
}

/** Reads flags (argv without the node/script part), the TOML file they name, and the environment. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env, readText: (path: string) => string = (p) => readFileSync(p, 'utf8')): ConfigResult | { ok: 'help' } {
  let values;
  try {
    values = parseArgs({ args: resolveAliases(argv), options: FLAGS, allowPositionals: false, strict: true }).values;
  } catch (err) {
    return { ok: false, message: `${(err as Error).message}\n\n${USAGE}` };
  }
  if (values.help) return { ok: 'help' };
  let doc: Table = {};
  if (values.config) {
    try {
      doc = parseToml(readText(values.config));
    } catch (err) {
      return { ok: false, message: `cannot read config file ${values.config}: ${(err as Error).message}` };
    }
  }
  const server = section(doc, 'server');
  const auth = section(doc, 'auth');
  const etcd = section(doc, 'etcd');
  const runtime = section(doc, 'runtime');
  const registry = section(doc, 'registry');
  const node = section(doc, 'node');
  const replication = section(doc, 'replication');

  const missing: string[] = [];
  const problems: string[] = [];
  const logLevel = resolveLogLevel(values['log-level'], env);
  if (!logLevel.ok) problems.push(logLevel.message);
  const need = (v: string | undefined, name: string): string => {
    if (v === undefined) missing.push(name);
    return v ?? '';
  };

  const addr = (flag: string | undefined, file: unknown, portFlag: string | undefined, name: string): HostPort => {
    const raw = flag ?? str(file) ?? (portFlag !== undefined ? `127.0.0.1:${portFlag}` : undefined);
    if (raw === undefined) {
      missing.push(name);
      return { host: '127.0.0.1', port: 0 };
    }
    const parsed = parseHostPort(raw, name);
    if (typeof parsed === 'string') {
      problems.push(parsed);
      return { host: '127.0.0.1', port: 0 };
    }
    if (portFlag !== undefined) {
      if (!/^\d{1,5}$/.test(portFlag)) problems.push(`--port/--admin-port must be a number, got "${portFlag}"`);
      else parsed.port = Number(portFlag);
    }
    return parsed;
  };
  /** A duration; `fallback` undefined = required (the seed's rule), missing is reported. */
  const duration = (flag: string | undefined, file: unknown, name: string, fallback?: string): number => {
    const raw = flag ?? str(file) ?? fallback;
    if (raw === undefined) {
      missing.push(name);
      return 0;
    }
    const ms = parseDurationMs(raw);
    if (Number.isNaN(ms) || ms <= 0) problems.push(`${name} must be a duration like "5s" or "500ms", got "${raw}"`);
    return ms;
  };

  const httpAddr = addr(values['http-addr'], server.http_addr, values.port, 'server.http_addr (--http-addr)');
  const adminAddr = addr(values['admin-addr'], server.admin_addr, values['admin-port'], 'server.admin_addr (--admin-addr)');
  const adminToken = need(values['admin-token'] ?? str(auth.admin_token) ?? str(env.ORRERY_REGISTRY_ADMIN_TOKEN), 'auth.admin_token (--admin-token)');
  const replicationToken = need(
    values['replication-token'] ?? str(auth.replication_token) ?? str(env.ORRERY_REGISTRY_REPLICATION_TOKEN),
    'auth.replication_token (--replication-token)',
  );
  const prometheusSdToken = need(
    values['prometheus-sd-token'] ?? str(auth.prometheus_sd_token) ?? str(env.ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN),
    'auth.prometheus_sd_token (--prometheus-sd-token)',
  );
  const rawEndpoints = values['etcd-endpoints'] ?? (Array.isArray(etcd.endpoints) ? etcd.endpoints.join(',') : str(etcd.endpoints));
  const etcdEndpoints = (rawEndpoints ?? '')
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
    .map((e) => (/^https?:\/\//.test(e) ? e : `http://${e}`));
  if (etcdEndpoints.length === 0) missing.push('etcd.endpoints (--etcd-endpoints)');

  const limitRaw = values['registry-cleanup-delete-limit'] ?? str(registry.cleanup_delete_limit);
  let cleanupDeleteLimit = 0;
  if (limitRaw === undefined) missing.push('registry.cleanup_delete_limit (--registry-cleanup-delete-limit)');
  else {
    cleanupDeleteLimit = Number(limitRaw);
    if (!/^\d{1,9}$/.test(limitRaw) || cleanupDeleteLimit < 1) problems.push(`registry.cleanup_delete_limit must be a positive integer, got "${limitRaw}"`);
  }
  const region = need(values.region ?? str(node.region), 'node.region (--region)');
  const clusterId = need(values['cluster-id'] ?? str(node.cluster_id), 'node.cluster_id (--cluster-id)');
  const masterKeys: Buffer[] = [];
  const keyFile = (path: string | undefined, what: string): void => {
    if (path === undefined) return;
    try {
      masterKeys.push(parseMasterKey(readText(path), `${what} ${path}`));
    } catch (err) {
      problems.push((err as NodeJS.ErrnoException).code ? `cannot read ${what} ${path}: ${(err as Error).message}` : (err as Error).message);
    }
  };
  const currentKey = values['registry-master-key-file'] ?? str(auth.registry_master_key_file);
  const previousKey = values['previous-registry-master-key-file'] ?? str(auth.previous_registry_master_key_file);
  if (previousKey !== undefined && currentKey === undefined) {
    problems.push('auth.previous_registry_master_key_file needs auth.registry_master_key_file (the new key) too');
  }
  keyFile(currentKey, 'registry master key file');
  keyFile(previousKey, 'previous registry master key file');
  const written = loadWriteTokens(auth.write_tokens, values['write-tokens-file'] ?? str(auth.write_tokens_file), readText);
  problems.push(...written.problems);
  const requireFile = bool(auth.require_write_tokens);
  if (requireFile === 'bad') problems.push('auth.require_write_tokens must be true or false');
  const count = (flag: string | undefined, file: unknown, name: string, fallback: number): number => {
    const raw = flag ?? str(file);
    if (raw === undefined) return fallback;
    const n = Number(raw);
    if (!/^\d{1,9}$/.test(raw)) problems.push(`${name} must be a whole number ≥ 0 (0 = no cap), got "${raw}"`);
    return n;
  };
  const watchLimits: WatchLimits = {
    maxWatches: count(values['max-watches'], registry.max_watches, 'registry.max_watches', DEFAULT_WATCH_LIMITS.maxWatches),
    maxWatchesPerClient: count(values['max-watches-per-client'], registry.max_watches_per_client, 'registry.max_watches_per_client', DEFAULT_WATCH_LIMITS.maxWatchesPerClient),
  };

  const batchingRaw = values['write-batching'] ?? (typeof etcd.write_batching === 'boolean' ? (etcd.write_batching ? 'on' : 'off') : str(etcd.write_batching));
  if (batchingRaw !== undefined && batchingRaw !== 'on' && batchingRaw !== 'off') {
    problems.push(`etcd.write_batching (--write-batching) must be on or off, got "${batchingRaw}"`);
  }

  const targetsFile = values['replication-targets-file'] ?? str(replication.targets_file);
  let replicationTargets: ReplicationTarget[] = [];
  if (targetsFile !== undefined && region && replicationToken) {
    let text: string | undefined;
    try {
      text = readText(targetsFile);
    } catch (err) {
      problems.push(`cannot read replication targets file ${targetsFile}: ${(err as Error).message}`);
    }
    if (text !== undefined) {
      const parsed = parseTargetsFile(text, region, replicationToken);
      if (parsed.ok) replicationTargets = parsed.value;
      else problems.push(`${parsed.message} (${targetsFile})`);
    }
  }

  const config: RegistryConfig = {
    httpAddr,
    adminAddr,
    adminToken,
    replicationToken,
    prometheusSdToken,
    etcdEndpoints,
    dialTimeoutMs: duration(values['dial-timeout'], etcd.dial_timeout, 'etcd.dial_timeout', '5s'),
    requestTimeoutMs: duration(values['request-timeout'], runtime.request_timeout, 'runtime.request_timeout (--request-timeout)'),
    shutdownTimeoutMs: duration(values['shutdown-timeout'], runtime.shutdown_timeout, 'runtime.shutdown_timeout (--shutdown-timeout)'),
    cleanupIntervalMs: duration(values['registry-cleanup-interval'], registry.cleanup_interval, 'registry.cleanup_interval (--registry-cleanup-interval)'),
    cleanupDeleteLimit,
    prefix: values.prefix ?? str(etcd.prefix) ?? '/orrery/registry',
    region,
    clusterId,
    replicationTargets,
    registryMasterKeys: masterKeys,
    writeTokens: written.tokens,
    requireWriteTokens: values['require-write-tokens'] ?? (requireFile === true),
    watchLimits,
    writeBatching: batchingRaw !== 'off',
    logLevel: logLevel.ok ? logLevel.value : undefined,
  };
  if (missing.length > 0) {
    problems.unshift(`missing required settings (give them in the TOML file or as flags): ${missing.sort().join(', ')}`);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('\n') };
  return values['check-config'] ? { ok: true, config, checkOnly: true } : { ok: true, config };
}
