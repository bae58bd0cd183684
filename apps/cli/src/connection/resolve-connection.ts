/**
 * Where the CLI finds the platform. Precedence: flag → environment variable → the
 * `.orrery/platform.json` that `orrery up` writes (searched from the working directory
 * upwards) → the local default. The default store URL is the operator's default listen
 * address on the local platform, http://127.0.0.1:7070.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

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
  routerUrl: string;
  dataDir: string;
  /** The platform file used, if any (for error messages). */
  platformFile: string | undefined;
}

export interface ConnectionFlags {
  storeUrl?: string;
  storeTokenFile?: string;
  routerUrl?: string;
  dataDir?: string;
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
  const platformFile = findPlatformFile(cwd);
  const platform = platformFile ? readPlatformFile(platformFile) : {};
  const relativeToPlatform = (p: string) => (platformFile ? resolve(dirname(dirname(platformFile)), p) : resolve(p));
  const tokenFile = flags.storeTokenFile ?? env.ORRERY_STORE_TOKEN_FILE ?? (platform.storeTokenFile ? relativeToPlatform(platform.storeTokenFile) : undefined);
  const storeToken = tokenFile ? readFileSync(tokenFile, 'utf8').trim() : (env.ORRERY_STORE_TOKEN ?? platform.storeToken) || undefined;
  return {
    storeUrl: trimUrl(flags.storeUrl ?? env.ORRERY_STORE_URL ?? platform.storeUrl ?? DEFAULT_STORE_URL),
    storeToken,
    routerUrl: trimUrl(flags.routerUrl ?? env.ORRERY_ROUTER_URL ?? platform.routerUrls?.[0] ?? platform.routerUrl ?? DEFAULT_ROUTER_URL),
    dataDir: flags.dataDir ? resolve(flags.dataDir) : env.ORRERY_DATA_DIR ? resolve(env.ORRERY_DATA_DIR) : platform.dataDir ? relativeToPlatform(platform.dataDir) : resolve(DEFAULT_DATA_DIR),
    platformFile,
  };
}

/** The parseArgs options every store-talking command accepts. */
export const CONNECTION_OPTIONS = {
  'store-url': { type: 'string' },
  'store-token-file': { type: 'string' },
} as const;

export const CONNECTION_HELP = `connection: --store-url URL (or $ORRERY_STORE_URL; default: storeUrl from .orrery/platform.json,
else ${DEFAULT_STORE_URL}), --store-token-file FILE (or $ORRERY_STORE_TOKEN_FILE / $ORRERY_STORE_TOKEN).`;
