import type { IncomingMessage, ServerResponse } from 'node:http';
import { type ApiServices, createApiHandler, readUsersFile, upsertUserHash } from '@orrery/api';
import { type ResourceStore, STORE_PREFIX, createStoreHandler } from '@orrery/store';

export interface PlatformApiOptions extends Omit<ApiServices, 'store'> {
  /** The resource store both surfaces serve (embedded database or the Kubernetes API). */
  store: ResourceStore;
  /** Bearer token of /v1/store/ (absent = loopback callers only). */
  storeToken?: string;
  /** `name:role:hash` lines (see `orrery passwd`) loaded into the users table at start. */
  usersFile?: string;
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
  const { storeToken, usersFile, log, ...services } = o;
  if (usersFile) {
    const users = readUsersFile(usersFile);
    for (const u of users) await upsertUserHash(o.db, u.name, u.role, u.passwordHash);
    log?.('admin API users loaded', { users: users.length });
  }
  const handleStore = createStoreHandler(o.store, { token: storeToken });
  const handleApi = createApiHandler(() => services);
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
