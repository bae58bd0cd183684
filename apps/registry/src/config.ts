import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { parse as parseToml } from 'smol-toml';
import { parseDurationMs } from '@orrery/spec';

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
  clusterId?: string;
}

export type ConfigResult = { ok: true; config: RegistryConfig } | { ok: false; message: string };

export const USAGE = `usage: orrery-registry [--config registry.toml] [flags]

flags override the TOML file; required values must come from one of them:
  --http-addr HOST:PORT         [server] http_addr   (public API; port 0 picks a free port)
  --admin-addr HOST:PORT        [server] admin_addr  (admin API; loopback only)
  --port N / --admin-port N     shorthand for the ports of the two addresses above
  --etcd-endpoints URL,URL      [etcd] endpoints
  --admin-token T               [auth] admin_token          (or ORRERY_REGISTRY_ADMIN_TOKEN)
  --replication-token T         [auth] replication_token    (or ORRERY_REGISTRY_REPLICATION_TOKEN)
  --prometheus-sd-token T       [auth] prometheus_sd_token  (or ORRERY_REGISTRY_PROMETHEUS_SD_TOKEN)
optional (default):
  --dial-timeout D              [etcd] dial_timeout (5s)
  --prefix P                    [etcd] prefix (/orrery/registry)
  --request-timeout D           [runtime] request_timeout (5s)
  --shutdown-timeout D          [runtime] shutdown_timeout (10s)
  --cleanup-interval D          [registry] cleanup_interval (30s)
  --cleanup-delete-limit N      [registry] cleanup_delete_limit (128)
  --region R / --cluster-id C   [node] region ("default"), cluster_id (etcd's cluster id)`;

const FLAGS = {
  config: { type: 'string' },
  'http-addr': { type: 'string' },
  'admin-addr': { type: 'string' },
  port: { type: 'string' },
  'admin-port': { type: 'string' },
  'etcd-endpoints': { type: 'string' },
  'dial-timeout': { type: 'string' },
  prefix: { type: 'string' },
  'admin-token': { type: 'string' },
  'replication-token': { type: 'string' },
  'prometheus-sd-token': { type: 'string' },
  'request-timeout': { type: 'string' },
  'shutdown-timeout': { type: 'string' },
  'cleanup-interval': { type: 'string' },
  'cleanup-delete-limit': { type: 'string' },
  region: { type: 'string' },
  'cluster-id': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

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

/** Reads flags (argv without the node/script part), the TOML file they name, and the environment. */
export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): ConfigResult | { ok: 'help' } {
  let values;
  try {
    values = parseArgs({ args: argv, options: FLAGS, allowPositionals: false, strict: true }).values;
  } catch (err) {
    return { ok: false, message: `${(err as Error).message}\n\n${USAGE}` };
  }
  if (values.help) return { ok: 'help' };
  let doc: Table = {};
  if (values.config) {
    try {
      doc = parseToml(readFileSync(values.config, 'utf8'));
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

  const missing: string[] = [];
  const problems: string[] = [];
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
  const duration = (flag: string | undefined, file: unknown, name: string, fallback: string): number => {
    const raw = flag ?? str(file) ?? fallback;
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

  const limitRaw = values['cleanup-delete-limit'] ?? str(registry.cleanup_delete_limit) ?? '128';
  const cleanupDeleteLimit = Number(limitRaw);
  if (!Number.isInteger(cleanupDeleteLimit) || cleanupDeleteLimit < 1) {
    problems.push(`registry.cleanup_delete_limit must be a positive integer, got "${limitRaw}"`);
  }
  const config: RegistryConfig = {
    httpAddr,
    adminAddr,
    adminToken,
    replicationToken,
    prometheusSdToken,
    etcdEndpoints,
    dialTimeoutMs: duration(values['dial-timeout'], etcd.dial_timeout, 'etcd.dial_timeout', '5s'),
    requestTimeoutMs: duration(values['request-timeout'], runtime.request_timeout, 'runtime.request_timeout', '5s'),
    shutdownTimeoutMs: duration(values['shutdown-timeout'], runtime.shutdown_timeout, 'runtime.shutdown_timeout', '10s'),
    cleanupIntervalMs: duration(values['cleanup-interval'], registry.cleanup_interval, 'registry.cleanup_interval', '30s'),
    cleanupDeleteLimit,
    prefix: values.prefix ?? str(etcd.prefix) ?? '/orrery/registry',
    region: values.region ?? str(node.region) ?? 'default',
  };
  const clusterId = values['cluster-id'] ?? str(node.cluster_id);
  if (clusterId) config.clusterId = clusterId;
  if (missing.length > 0) {
    problems.unshift(`missing required settings (give them in the TOML file or as flags): ${missing.join(', ')}`);
  }
  if (problems.length > 0) return { ok: false, message: problems.join('\n') };
  return { ok: true, config };
}
