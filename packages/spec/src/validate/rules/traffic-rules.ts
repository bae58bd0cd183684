import { duplicates } from './duplicates.ts';
import { isRecord, type ObjectRule } from './object-rule.ts';

/** Most traffic targets a Function may list: keeps the O(n²) tag rule within CEL's cost budget. */
export const MAX_TRAFFIC_TARGETS = 100;

const named = (t: Record<string, unknown>) => typeof t.revisionName === 'string' && t.revisionName !== '';

/** On each traffic target: `latestRevision: true` and a revisionName exclude each other. */
export const TRAFFIC_REVISION_CONFLICT: ObjectRule = {
  reason: 'traffic_revision_conflict',
  cel: '!(has(self.latestRevision) && self.latestRevision && has(self.revisionName) && size(self.revisionName) > 0)',
  fieldPath: '.revisionName',
  holds: (t) => !isRecord(t) || !(t.latestRevision === true && named(t)),
};

/** On each traffic target: a target without `latestRevision: true` names its revision. */
export const TRAFFIC_REVISION_MISSING: ObjectRule = {
  reason: 'traffic_revision_missing',
  cel: '(has(self.latestRevision) && self.latestRevision) || (has(self.revisionName) && size(self.revisionName) > 0)',
  holds: (t) => !isRecord(t) || t.latestRevision === true || named(t),
};

/** On spec.traffic: a non-empty split adds up to exactly 100 (an absent percent counts 0). */
export const TRAFFIC_SUM: ObjectRule = {
  reason: 'traffic_sum',
  cel: 'size(self) == 0 || self.map(t, has(t.percent) ? t.percent : 0).sum() == 100',
  holds: (traffic) => {
    const sum = trafficSum(traffic);
    return sum === undefined || sum === 100;
  },
};

/** The sum of the percents, or undefined when the list is empty or a percent is not a number. */
export function trafficSum(traffic: unknown): number | undefined {
  if (!Array.isArray(traffic) || traffic.length === 0) return undefined;
  let sum = 0;
  for (const t of traffic) {
    const percent = isRecord(t) ? (t.percent ?? 0) : 0;
    if (typeof percent !== 'number' || !Number.isFinite(percent)) return undefined;
    sum += percent;
  }
  return sum;
}

/** On spec.traffic: each tag names one target. */
export const TAGS_UNIQUE: ObjectRule = {
  reason: 'tag_duplicate',
  cel: 'self.all(t, !has(t.tag) || self.exists_one(u, has(u.tag) && u.tag == t.tag))',
  holds: (traffic) => duplicates(Array.isArray(traffic) ? traffic.map((t) => (isRecord(t) ? t.tag : undefined)) : []).length === 0,
};

/**
 * On the Function (root: CEL sees `metadata.name` only there): a named revision belongs to this
 * function, `<function>-NNNNN`.
 */
export const TRAFFIC_REVISION_OWNED: ObjectRule = {
  reason: 'traffic_revision_foreign',
  cel:
    '!has(self.spec.traffic) || self.spec.traffic.all(t, !has(t.revisionName) || size(t.revisionName) == 0 || ' +
    "t.revisionName.startsWith(self.metadata.name + '-'))",
  holds: (fn) => {
    if (!isRecord(fn) || !isRecord(fn.spec) || !Array.isArray(fn.spec.traffic)) return true;
    const name = isRecord(fn.metadata) ? fn.metadata.name : undefined;
    if (typeof name !== 'string') return true;
    return fn.spec.traffic.every((t) => !isRecord(t) || !named(t) || revisionOf(name, t.revisionName as string));
  },
};

export function revisionOf(functionName: string, revisionName: string): boolean {
  return revisionName.startsWith(`${functionName}-`);
}
