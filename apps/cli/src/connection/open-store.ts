import { createHttpStore } from '@orrery/store';
import { type CliStore, createApiStore } from './api-store.ts';
import type { Connection } from './resolve-connection.ts';

/**
 * The admin API when a token is known and no store URL was forced, else the store directly.
 * `where` names the endpoint for error messages.
 */
export function openStore(conn: Connection): { store: CliStore; where: string; via: 'api' | 'store' } {
  if (conn.apiToken && !conn.directStore) return { store: createApiStore(conn.apiUrl, conn.apiToken), where: `${conn.apiUrl}/trpc`, via: 'api' };
  return { store: createHttpStore(conn.storeUrl, { token: conn.storeToken }), where: conn.storeUrl, via: 'store' };
}
