/** The audit page's filters, as form state, as URL search params (deep links) and as `audit.list` input. */
export interface AuditFilter {
  who: string;
  action: string;
  target: string;
  result: '' | 'ok' | 'error';
  /** `datetime-local` values (the browser's time zone). */
  from: string;
  to: string;
  limit: number;
}

const DEFAULT_LIMIT = 50;
const TEXT_KEYS = ['who', 'action', 'target', 'from', 'to'] as const;

export function auditFilterFromParams(params: { get(key: string): string | null }): AuditFilter {
  const result = params.get('result');
  const limit = Number(params.get('limit'));
  return {
    who: params.get('who') ?? '',
    action: params.get('action') ?? '',
    target: params.get('target') ?? '',
    result: result === 'ok' || result === 'error' ? result : '',
    from: params.get('from') ?? '',
    to: params.get('to') ?? '',
    limit: Number.isInteger(limit) && limit >= 1 && limit <= 500 ? limit : DEFAULT_LIMIT,
  };
}

export function paramsFromAuditFilter(f: AuditFilter): URLSearchParams {
  const p = new URLSearchParams();
  for (const k of TEXT_KEYS) if (f[k]) p.set(k, f[k]);
  if (f.result) p.set('result', f.result);
  if (f.limit !== DEFAULT_LIMIT) p.set('limit', String(f.limit));
  return p;
}

/** A `datetime-local` value as an ISO instant, or undefined when empty or unparsable. */
function isoOf(local: string): string | undefined {
  if (!local) return undefined;
  const t = new Date(local);
  return Number.isNaN(t.getTime()) ? undefined : t.toISOString();
}

/** The `audit.list` input: empty filters are left out (the API treats absent as "any"). */
export function auditListInput(f: AuditFilter, cursor?: number) {
  const text = (v: string) => (v.trim() ? v.trim() : undefined);
  return {
    who: text(f.who),
    action: text(f.action),
    target: text(f.target),
    result: f.result || undefined,
    from: isoOf(f.from),
    to: isoOf(f.to),
    cursor,
    limit: f.limit,
  };
}
