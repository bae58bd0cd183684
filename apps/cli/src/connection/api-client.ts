/**
 * The typed tRPC client of the admin API, authenticated with the bearer token (admin token or a
 * session id): the one way CLI commands change the platform, so every change is role-checked
 * and audited like a click in the console.
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import type { Connection } from './resolve-connection.ts';

export type ApiClient = ReturnType<typeof createTRPCClient<AppRouter>>;

export function createApiClient(apiUrl: string, token: string): ApiClient {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${apiUrl.replace(/\/+$/, '')}/trpc`, headers: () => ({ authorization: `Bearer ${token}` }) })],
  });
}

/**
 * The API client for commands that have no store-direct fallback (their procedures are not
 * plain store writes), or the reason there is none, worded for the user.
 */
export function requireApiClient(conn: Connection): { client: ApiClient } | { error: string } {
  if (!conn.apiToken) {
    return { error: `no admin API token: start the platform with \`orrery up\` (its secrets/admin.token is used), or pass --token-file / set ORRERY_API_TOKEN (API at ${conn.apiUrl})` };
  }
  return { client: createApiClient(conn.apiUrl, conn.apiToken) };
}
