import type { Parsed } from '../model/service-name.ts';

/**
 * What an answer (instances, a watch stream, Prometheus SD) shows beyond its filter.
 * `includeExpired=true`: also instances whose TTL passed without renewal, which answers skip by
 * default (the seed's rule; etcd removes them later).
 */
export interface AnswerOptions {
  includeExpired: boolean;
}

function flag(params: URLSearchParams, name: string): Parsed<boolean> {
  const v = params.get(name);
  if (v === null || v === '' || v === 'false') return { ok: true, value: false };
  if (v === 'true') return { ok: true, value: true };
  return { ok: false, message: `${name} must be true or false, got "${v.length > 40 ? `${v.slice(0, 40)}…` : v}"` };
}

export function parseAnswerOptions(params: URLSearchParams): Parsed<AnswerOptions> {
  const includeExpired = flag(params, 'includeExpired');
  if (!includeExpired.ok) return includeExpired;
  return { ok: true, value: { includeExpired: includeExpired.value } };
}
