import { RouterHotKeysResponseSchema, type RouterHotKeysResponse } from '@orrery/spec';
import type { ApiServices } from '../context.ts';
import { fetchJson } from './fetch-json.ts';

export interface ReplicaHotKeys {
  url: string;
  ok: boolean;
  error?: string;
  answer?: RouterHotKeysResponse;
}

/**
 * Every router replica's `/v1/hot-keys` (with the store token as bearer when the API has one); a
 * replica that does not answer, refuses or answers off-contract is reported, not fatal.
 */
export async function fetchRouterHotKeys(services: ApiServices, q: { namespace?: string; function?: string; limit: number }): Promise<ReplicaHotKeys[]> {
  const urls = (await services.routerAdminUrls?.()) ?? [];
  const timeout = services.upstreamTimeoutMs ?? 3000;
  const query = new URLSearchParams({ limit: String(q.limit) });
  if (q.namespace) query.set('namespace', q.namespace);
  if (q.function) query.set('function', q.function);
  const headers: Record<string, string> = services.routerToken ? { authorization: `Bearer ${services.routerToken}` } : {};
  return Promise.all(
    urls.map(async (url): Promise<ReplicaHotKeys> => {
      try {
        const a = await fetchJson('router', new URL(`/v1/hot-keys?${query}`, url).toString(), timeout, headers);
        if (a.status !== 200) return { url, ok: false, error: `status ${a.status}` };
        const parsed = RouterHotKeysResponseSchema.safeParse(a.body);
        if (!parsed.success) return { url, ok: false, error: "bad_response: the router's /v1/hot-keys answer does not match this API's contract" };
        return { url, ok: true, answer: parsed.data };
      } catch (err) {
        return { url, ok: false, error: (err as Error).message };
      }
    }),
  );
}
