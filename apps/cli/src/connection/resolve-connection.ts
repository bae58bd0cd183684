/**
 * Where the CLI finds the platform. Precedence: flag → environment variable → the
 * `.orrery/platform.json` that `orrery up` writes (searched from the working directory
 * upwards) → the local default. The default store URL is the operator's default listen
 * address on the local platform, http://127.0.0.1:7070.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { SERVICE_ACCOUNT_TOKEN, kubeTarget, type KubeTarget } from '../kubernetes/kube-target.ts';
import { DEFAULT_ORRERY_NAMESPACE } from '../kubernetes/operator-service.ts';

export const DEFAULT_STORE_URL = 'http://127.0.0.1:7070';
export const DEFAULT_ROUTER_URL = 'http://127.0.0.1:8080';
export const DEFAULT_DATA_DIR = '.orrery';

/** What `orrery up` records about the running local platform (the fields the CLI reads). */
export interface PlatformFile {
  storeUrl?: string;
  /** `orrery up` runs several router replicas: any of them serves. */
  routerUrls?: string[];
  routerUrl?: string;
  dataDir?: string;
  storeToken?: string;
  storeTokenFile?: string;
}

export interface Connection {
  storeUrl: string;
  storeToken: string | undefined;
  /** The admin API (served by the operator under /trpc/); resource commands go through it when a token is known. */
  apiUrl: string;
  /**
   * Admin token or session id for the API: --token-file, $ORRERY_API_TOKEN(_FILE), or the local
   * platform's secret (not on Kubernetes: there the release's Secret is read unless one is given).
   */
  apiToken: string | undefined;
  /** --store-url / $ORRERY_STORE_URL was given: talk to the store directly (no audit; for development). */
  directStore: boolean;
  routerUrl: string;
  dataDir: string;
  /** The platform file used, if any (for error messages). */
  platformFile: string | undefined;
  /** Set: resource commands talk to this Kubernetes API server instead (kube-target.ts says when). */
  kube?: KubeTarget;
  /** On Kubernetes, the namespace of the Orrery release whose admin API the admin commands use. */
  orreryNamespace: string;
}

export interface ConnectionFlags {
  storeUrl?: string;
  storeTokenFile?: string;
  apiUrl?: string;
  tokenFile?: string;
  routerUrl?: string;
  dataDir?: string;
  kubeconfig?: string;
  context?: string;
  orreryNamespace?: string;
}

/** The nearest `.orrery/platform.json` from `start` upwards. */
export function findPlatformFile(start: string): string | undefined {
  let dir = resolve(start);
  for (;;) {
    const candidate = join(dir, '.orrery', 'platform.json');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export function readPlatformFile(path: string): PlatformFile {
  const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error(`${path}: expected a JSON object`);
  return parsed;
}

const trimUrl = (u: string) => u.replace(/\/+$/, '');

export function resolveConnection(flags: ConnectionFlags, env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Connection {
  // An explicit data dir (`orrery up --data-dir X` elsewhere) names its platform file directly.
  const explicitDir = flags.dataDir ?? env.ORRERY_DATA_DIR;
  const explicitFile = explicitDir ? join(resolve(explicitDir), 'platform.json') : undefined;
  const platformFile = explicitFile && existsSync(explicitFile) ? explicitFile : findPlatformFile(cwd);
  const platform = platformFile ? readPlatformFile(platformFile) : {};
  const relativeToPlatform = (p: string) => (platformFile ? resolve(dirname(dirname(platformFile)), p) : resolve(p));
  const dataDir = flags.dataDir ? resolve(flags.dataDir) : env.ORRERY_DATA_DIR ? resolve(env.ORRERY_DATA_DIR) : platform.dataDir ? relativeToPlatform(platform.dataDir) : resolve(DEFAULT_DATA_DIR);
  // Last resort: the token a local operator makes in its data dir when it was given none.
  const madeByOperator = join(dataDir, 'secrets', 'store.token');
  const tokenFile =
    flags.storeTokenFile ??
    env.ORRERY_STORE_TOKEN_FILE ??
    (platform.storeTokenFile ? relativeToPlatform(platform.storeTokenFile) : undefined) ??
    (!env.ORRERY_STORE_TOKEN && !platform.storeToken && existsSync(madeByOperator) ? madeByOperator : undefined);
  const storeToken = tokenFile ? readFileSync(tokenFile, 'utf8').trim() : (env.ORRERY_STORE_TOKEN ?? platform.storeToken) || undefined;
  const kube = kubeTarget({ flags, env, platformFile: platformFile !== undefined, serviceAccount: existsSync(SERVICE_ACCOUNT_TOKEN) });
  // The local platform's admin token is no credential for a cluster's admin API.
  const localAdminToken = !kube && platformFile && existsSync(join(dataDir, 'secrets', 'admin.token')) ? join(dataDir, 'secrets', 'admin.token') : undefined;
  const apiTokenFile = flags.tokenFile ?? env.ORRERY_API_TOKEN_FILE ?? localAdminToken;
  const apiToken = apiTokenFile ? readFileSync(apiTokenFile, 'utf8').trim() : env.ORRERY_API_TOKEN || undefined;
  const storeUrl = trimUrl(flags.storeUrl ?? env.ORRERY_STORE_URL ?? platform.storeUrl ?? DEFAULT_STORE_URL);
  return {
    ...(kube ? { kube } : {}),
    storeUrl,
    storeToken,
    apiUrl: trimUrl(flags.apiUrl ?? env.ORRERY_API_URL ?? platform.storeUrl ?? DEFAULT_STORE_URL),
    apiToken,
    directStore: Boolean(flags.storeUrl ?? env.ORRERY_STORE_URL),
    routerUrl: trimUrl(flags.routerUrl ?? env.ORRERY_ROUTER_URL ?? platform.routerUrls?.[0] ?? platform.routerUrl ?? DEFAULT_ROUTER_URL),
    dataDir,
    platformFile,
    orreryNamespace: flags.orreryNamespace || env.ORRERY_NAMESPACE || DEFAULT_ORRERY_NAMESPACE,
  };
}

/** The parseArgs options every store-talking command accepts. */
export const CONNECTION_OPTIONS = {
  'api-url': { type: 'string' },
  'token-file': { type: 'string' },
  'store-url': { type: 'string' },
  'store-token-file': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
} as const;

/** The connection flags of a resource command, as resolveConnection takes them. */
export function connectionFlags(values: { 'api-url'?: string; 'token-file'?: string; 'store-url'?: string; 'store-token-file'?: string; kubeconfig?: string; context?: string; 'data-dir'?: string }): ConnectionFlags {
  return {
    storeUrl: values['store-url'],
    storeTokenFile: values['store-token-file'],
    apiUrl: values['api-url'],
    tokenFile: values['token-file'],
    kubeconfig: values.kubeconfig,
    context: values.context,
    dataDir: values['data-dir'],
  };
}

export const CONNECTION_HELP = `connection: the admin API (role-checked and audited) at --api-url URL (or $ORRERY_API_URL; default:
the operator from .orrery/platform.json, else ${DEFAULT_STORE_URL}) with --token-file FILE (or
$ORRERY_API_TOKEN_FILE / $ORRERY_API_TOKEN; default: the local platform's secrets/admin.token).
--store-url URL (or $ORRERY_STORE_URL) with --store-token-file FILE talks to the store directly
instead (development; nothing is audited). Kubernetes: --kubeconfig FILE and/or --context NAME
(or $KUBECONFIG, or in a pod its service account, when no local platform is found) reads and
writes the CRDs through the API server, server-side apply as field manager orrery-cli.`;

/** The flags of commands that only the admin API can serve (no store-direct path). */
export const API_CONNECTION_OPTIONS = {
  'api-url': { type: 'string' },
  'token-file': { type: 'string' },
  kubeconfig: { type: 'string' },
  context: { type: 'string' },
  'orrery-namespace': { type: 'string' },
} as const;

/** The connection flags of an admin-API-only command, as resolveConnection takes them. */
export function apiConnectionFlags(values: { 'api-url'?: string; 'token-file'?: string; kubeconfig?: string; context?: string; 'orrery-namespace'?: string }): ConnectionFlags {
  return { apiUrl: values['api-url'], tokenFile: values['token-file'], kubeconfig: values.kubeconfig, context: values.context, orreryNamespace: values['orrery-namespace'] };
}

export const API_CONNECTION_HELP = `connection: the admin API (role-checked and audited) at --api-url URL (or $ORRERY_API_URL; default:
the operator from .orrery/platform.json, else ${DEFAULT_STORE_URL}) with --token-file FILE (or
$ORRERY_API_TOKEN_FILE / $ORRERY_API_TOKEN; default: the local platform's secrets/admin.token).
Kubernetes: --kubeconfig FILE and/or --context NAME (or $KUBECONFIG, or in a pod its service
account, when no local platform is found) reaches the operator's admin API through the API
server's services proxy: the release's operator Service in --orrery-namespace NS (or
$ORRERY_NAMESPACE; default ${DEFAULT_ORRERY_NAMESPACE}), the admin token from the Secret the
operator generated unless --token-file gives one. RBAC: docs/cli.md.`;
