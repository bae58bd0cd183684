import type { Parsed } from '../model/service-name.ts';

/**
 * Prometheus SD's `scope`: the seed has `local` (this region's instances) and `merged` (with
 * the instances replicated from other regions). Orrery does not build cross-region
 * replication, so `merged` is refused rather than answered with the local view under another
 * name (docs/registry.md, "Deviations from the seed"). The message starts with a stable code.
 */
export const MERGED_SCOPE_NOT_BUILT =
  'replication_not_built: scope=merged needs cross-region replication, which Orrery does not build; use scope=local (or leave scope out): each region\'s registry answers for its own instances';

export function parseSdScope(params: URLSearchParams): Parsed<'local'> {
  const scope = params.get('scope') ?? 'local';
  if (scope === 'local' || scope === '') return { ok: true, value: 'local' };
  if (scope === 'merged') return { ok: false, message: MERGED_SCOPE_NOT_BUILT };
  return { ok: false, message: `scope must be local (merged is not built), got "${scope.length > 40 ? `${scope.slice(0, 40)}…` : scope}"` };
}
