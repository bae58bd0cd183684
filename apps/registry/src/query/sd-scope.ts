import type { Parsed } from '../model/service-name.ts';

/**
 * Prometheus SD's `scope` (the seed): `local` — this region's instances; `merged` — with the
 * instances replicated from the regions in `[replication] targets_file` (replication/). With no
 * targets configured the two are the same set.
 */
export type SdScope = 'local' | 'merged';

export function parseSdScope(params: URLSearchParams): Parsed<SdScope> {
  const scope = params.get('scope') ?? 'local';
  if (scope === 'local' || scope === '') return { ok: true, value: 'local' };
  if (scope === 'merged') return { ok: true, value: 'merged' };
  return { ok: false, message: `scope must be local or merged, got "${scope.length > 40 ? `${scope.slice(0, 40)}…` : scope}"` };
}
