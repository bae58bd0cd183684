import { RouterFunctionStatsSchema, RouterRevisionStatsSchema, type RouterFunctionStats, type RouterRevisionStats } from '@orrery/spec';
import type { ApiServices } from '../context.ts';
import { fetchJson } from './fetch-json.ts';

export type { RouterFunctionStats, RouterRevisionStats };

export interface ReplicaStats {
  url: string;
  ok: boolean;
  error?: string;
  functions: RouterFunctionStats[];
  revisions: RouterRevisionStats[];
}

/** Every router replica's stats; a replica that does not answer is reported, not fatal. */
export async function fetchRouterStats(services: ApiServices): Promise<ReplicaStats[]> {
  const urls = (await services.routerAdminUrls?.()) ?? [];
  const timeout = services.upstreamTimeoutMs ?? 3000;
  return Promise.all(
    urls.map(async (url): Promise<ReplicaStats> => {
      try {
        const a = await fetchJson('router', new URL('/v1/stats', url).toString(), timeout);
        if (a.status !== 200) return { url, ok: false, error: `status ${a.status}`, functions: [], revisions: [] };
        const body = a.body as { functions?: unknown; revisions?: unknown };
        // Entries that do not match the contract are skipped rather than trusted.
        return {
          url,
          ok: true,
          functions: (Array.isArray(body.functions) ? body.functions : []).flatMap((f) => RouterFunctionStatsSchema.safeParse(f).data ?? []),
          revisions: (Array.isArray(body.revisions) ? body.revisions : []).flatMap((r) => RouterRevisionStatsSchema.safeParse(r).data ?? []),
        };
      } catch (err) {
        return { url, ok: false, error: (err as Error).message, functions: [], revisions: [] };
      }
    }),
  );
}
