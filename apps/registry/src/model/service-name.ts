/**
 * StellMap service names: `organization.businessDomain.capabilityDomain.application.role`,
 * five dot-separated segments, always complete (no skipped levels).
 */
export const SEGMENT_FIELDS = ['organization', 'businessDomain', 'capabilityDomain', 'application', 'role'] as const;
export type SegmentField = (typeof SEGMENT_FIELDS)[number];
export type ServiceSegments = Record<SegmentField, string>;

/** A segment: letters, digits, '-' and '_' inside, alphanumeric at both ends (`counter-00001` is fine). */
const SEGMENT = /^[A-Za-z0-9](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9])?$/;

export function isValidSegment(value: string): boolean {
  return SEGMENT.test(value);
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; message: string };

/** Splits a full service name into its five segments. */
export function parseServiceName(service: string): Parsed<ServiceSegments> {
  const parts = service.split('.');
  if (parts.length !== 5) {
    return {
      ok: false,
      message: `service "${service}" must have exactly five dot-separated segments (organization.businessDomain.capabilityDomain.application.role), e.g. company.trade.order.order-center.api`,
    };
  }
  const bad = parts.find((p) => !isValidSegment(p));
  if (bad !== undefined) return { ok: false, message: `service "${service}" has an invalid segment "${bad}": ${SEGMENT_RULE}` };
  const [organization, businessDomain, capabilityDomain, application, role] = parts as [string, string, string, string, string];
  return { ok: true, value: { organization, businessDomain, capabilityDomain, application, role } };
}

export const SEGMENT_RULE =
  'segments use letters, digits, "-" and "_", start and end with a letter or digit, and are at most 63 characters';

export function formatServiceName(s: ServiceSegments): string {
  return SEGMENT_FIELDS.map((f) => s[f]).join('.');
}

/**
 * Reads the segment fields given in a request (some may be absent) and says whether they form a
 * leading run: all five (an exact service), the first k (a prefix), none, or a gap (an error).
 */
export function segmentRun(given: Partial<Record<SegmentField, string | undefined>>): Parsed<{ kind: 'none' } | { kind: 'exact'; service: string } | { kind: 'prefix'; prefix: string }> {
  const present = SEGMENT_FIELDS.map((f) => given[f]).map((v) => (v === undefined || v === '' ? undefined : v));
  const count = present.filter((v) => v !== undefined).length;
  if (count === 0) return { ok: true, value: { kind: 'none' } };
  const leading = present.findIndex((v) => v === undefined);
  const run = leading === -1 ? 5 : leading;
  if (run !== count) {
    let last = -1;
    present.forEach((v, i) => {
      if (v !== undefined) last = i;
    });
    const missing = SEGMENT_FIELDS.filter((_, i) => i < last && present[i] === undefined);
    return {
      ok: false,
      message: `service segments must be given as a leading run without gaps (organization, businessDomain, capabilityDomain, application, role); missing ${missing.join(', ')}`,
    };
  }
  const values = present.slice(0, run) as string[];
  const bad = values.find((v) => !isValidSegment(v));
  if (bad !== undefined) return { ok: false, message: `invalid service segment "${bad}": ${SEGMENT_RULE}` };
  if (run === 5) return { ok: true, value: { kind: 'exact', service: values.join('.') } };
  return { ok: true, value: { kind: 'prefix', prefix: values.join('.') } };
}

/** Segment-boundary prefix match: `company.trade` matches `company.trade.order.x.api`, not `company.trader…`. */
export function serviceHasPrefix(service: string, prefix: string): boolean {
  return service === prefix || service.startsWith(`${prefix}.`);
}
