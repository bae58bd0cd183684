import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiServices, createApiHandler, parseTrustedProxies } from '@orrery/api';
import { type ResourceStore, STORE_PREFIX, createStoreHandler } from '@orrery/store';
import { UsersFileSource } from './users-file-source.ts';

export interface PlatformApiOptions extends Omit<ApiServices, 'store'> {
  /** The resource store both surfaces serve (embedded database or the Kubernetes API). */
  store: ResourceStore;
  /** Bearer token of /v1/store/ (absent = loopback callers only). */
  storeToken?: string;
  /** `name:role:hash` lines (see `orrery passwd`): the users, re-read when the file changes. */
  usersFile?: string;
  /**
   * Peers whose X-Forwarded-Proto/-For/-Host the admin API believes (`--trusted-proxies`, else
   * `$ORRERY_TRUSTED_PROXIES`): the console and a TLS ingress in front of the operator.
   */
  trustedProxies?: string;
  log?: (msg: string, fields?: Record<string, unknown>) => void;
}

export interface PlatformApi {
  services: ApiServices;
  /** Serves /v1/store/ and /trpc/; resolves false for any other path. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<boolean>;
}

const API_PREFIX = '/trpc/';

/**
 * What the other components read resources through, on either backend: the store HTTP API
 * (router, statesvc, CLI) and the tRPC admin API (console, CLI, automation; docs/api.md).
 */
export async function createPlatformApi(o: PlatformApiOptions): Promise<PlatformApi> {
  const { storeToken, usersFile, trustedProxies, log, ...services } = o;
  // Routers started with the store token want it on /v1/hot-keys (sticky keys are user data).
  if (services.routerToken === undefined && storeToken !== undefined) services.routerToken = storeToken;
  const trusted = parseTrustedProxies(trustedProxies ?? process.env.ORRERY_TRUSTED_PROXIES);
  if (trusted.entries.length) log?.('admin API trusts forwarded headers from', { trustedProxies: trusted.entries });
  const users = usersFile ? new UsersFileSource(usersFile, o.db, log) : undefined;
  await users?.load();
  const handleStore = createStoreHandler(o.store, { token: storeToken });
  // The users file is looked at before every request, so a removed user's next call already fails.
  const handleApi = createApiHandler(
    async () => {
      await users?.refresh();
      return services;
    },
    { trustedProxies: trusted },
  );
  return {
    services,
    async handle(req, res) {
      const path = req.url ?? '/';
      if (path.startsWith(API_PREFIX)) {
        handleApi(req, res);
        return true;
      }
      if (path.startsWith(STORE_PREFIX)) return handleStore(req, res);
      return false;
    },
  };
}
