import type { ApiServices } from '../context.ts';
import { fetchJson } from './fetch-json.ts';

/** The per-function part of a router replica's `GET /v1/stats` (see docs/router.md). */
export interface RouterFunctionStats {
  namespace: string;
  function: string;
  requests: number;
  stickyRequests: number;
  stickyKeyMissing: number;
  stickyHits: number;
  teleports: number;
  stickyHitRatio?: number;
}

export interface ReplicaStats {
  url: string;
  ok: boolean;
  error?: string;
  functions: RouterFunctionStats[];
}

/** Every router replica's stats; a replica that does not answer is reported, not fatal. */
export async function fetchRouterStats(services: ApiServices): Promise<ReplicaStats[]> {
  const urls = (await services.routerAdminUrls?.()) ?? [];
  const timeout = services.upstreamTimeoutMs ?? 3000;
  return Promise.all(
    urls.map(async (url): Promise<ReplicaStats> => {
      try {
        const a = await fetchJson('router', new URL('/v1/stats', url).toString(), timeout);
        if (a.status !== 200) return { url, ok: false, error: `status ${a.status}`, functions: [] };
        const fns = (a.body as { functions?: RouterFunctionStats[] }).functions;
        return { url, ok: true, functions: Array.isArray(fns) ? fns : [] };
      } catch (err) {
        return { url, ok: false, error: (err as Error).message, functions: [] };
      }
    }),
  );
}
