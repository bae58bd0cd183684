/**
 * Reads hot keys from both sources for the admin API: statesvc's per-keyspace summary (one signed
 * admin read) and the routers' per-function sticky summaries (every replica, merged). A source
 * that fails is reported beside the other's answer, never fatal.
 */
import { StateHotKeysResponseSchema, type StateHotKeysResponse } from '@orrery/spec';
import { fetchRouterHotKeys } from '../clients/router-hot-keys.ts';
import { statesvcAdminGet } from '../clients/statesvc-admin.ts';
import type { ApiServices } from '../context.ts';
import { mergeStickyHotKeys, type MergedFunctionHotKeys } from './merge-sticky-hot-keys.ts';

export type StateHotKeysRead = { ok: true; answer: StateHotKeysResponse } | { ok: false; error: string };

export async function readStateHotKeys(services: ApiServices, q: { namespace?: string; keyspace?: string; limit: number }): Promise<StateHotKeysRead> {
  if (!services.statesvc) return { ok: false, error: 'the API was started without a statesvc URL' };
  const params = new URLSearchParams();
  if (q.namespace) params.set('scope-namespace', q.namespace);
  if (q.keyspace) params.set('scope-keyspace', q.keyspace);
  params.set('limit', String(q.limit));
  try {
    return { ok: true, answer: await statesvcAdminGet(services, `/v1/admin/hot-keys?${params}`, StateHotKeysResponseSchema) };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

export interface StickyHotKeysRead {
  functions: MergedFunctionHotKeys[];
  halfLifeSeconds: number | null;
  replicas: Array<{ url: string; ok: boolean; error: string | null }>;
}

/** Replicas are asked for more keys than shown, so a key high on the sum but lower on one replica is still counted there. */
export async function readStickyHotKeys(services: ApiServices, q: { namespace?: string; function?: string; limit: number }): Promise<StickyHotKeysRead> {
  const replicas = await fetchRouterHotKeys(services, { ...q, limit: Math.min(50, q.limit * 2) });
  const answers = replicas.flatMap((r) => (r.answer ? [r.answer] : []));
  return {
    functions: mergeStickyHotKeys(answers, q.limit),
    halfLifeSeconds: answers[0]?.halfLifeSeconds ?? null,
    replicas: replicas.map((r) => ({ url: r.url, ok: r.ok, error: r.error ?? null })),
  };
}
