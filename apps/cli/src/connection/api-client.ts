/**
 * The typed tRPC client of the admin API, authenticated with the admin token or a session id:
 * the one way CLI commands change the platform, so every change is role-checked and audited
 * like a click in the console. Directly at --api-url, or on Kubernetes through the API server
 * (kubernetes/kube-admin-api.ts).
 */
import { createTRPCClient, httpLink } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import { adminCredentialHeaders } from './admin-credential-header.ts';
import { describeApiError } from './api-errors.ts';
import type { Connection } from './resolve-connection.ts';

export type ApiClient = ReturnType<typeof createTRPCClient<AppRouter>>;

/** A client and how to word its failures for the user (what to check depends on the way it went). */
export interface AdminApi {
  client: ApiClient;
  /** The endpoint, for messages. */
  where: string;
  describeError(err: unknown): string;
}

export function createApiClient(apiUrl: string, token: string): ApiClient {
  return createTRPCClient<AppRouter>({
    links: [httpLink({ url: `${apiUrl.replace(/\/+$/, '')}/trpc`, headers: () => adminCredentialHeaders(token, 'direct') })],
  });
}

/**
 * The admin API for commands that have no store-direct fallback (their procedures are not plain
 * store writes), or the reason there is none, worded for the user. On Kubernetes (conn.kube) it
 * is the release's operator behind the API server's services proxy.
 */
export async function requireApiClient(conn: Connection): Promise<AdminApi | { error: string }> {
  if (conn.kube) {
    // Loaded only here: @kubernetes/client-node takes most of a second to import.
    const { openKubeAdminApi } = await import('../kubernetes/kube-admin-api.ts');
    return openKubeAdminApi(conn.kube, { namespace: conn.orreryNamespace, token: conn.apiToken });
  }
  if (!conn.apiToken) {
    return { error: `no admin API token: start the platform with \`orrery up\` (its secrets/admin.token is used), or pass --token-file / set ORRERY_API_TOKEN (API at ${conn.apiUrl})` };
  }
  return { client: createApiClient(conn.apiUrl, conn.apiToken), where: conn.apiUrl, describeError: (err) => describeApiError(err, conn.apiUrl) };
}
