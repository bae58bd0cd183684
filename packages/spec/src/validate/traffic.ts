import type { FunctionSpec, TrafficTarget } from '../kinds/function.ts';
import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { duplicates } from './rules/duplicates.ts';
import { revisionOf, TAGS_UNIQUE, TRAFFIC_REVISION_CONFLICT, TRAFFIC_REVISION_MISSING, TRAFFIC_SUM, trafficSum } from './rules/traffic-rules.ts';
import type { ValidationError } from './types.ts';

/** Traffic as it is routed: an empty list means 100 % to the latest ready revision. */
export function effectiveTraffic(spec: Pick<FunctionSpec, 'traffic'> | { traffic?: TrafficTarget[] }): TrafficTarget[] {
  const traffic = spec.traffic ?? [];
  return traffic.length > 0 ? traffic : [{ latestRevision: true, percent: 100 }];
}

/**
 * Knative route rules: every target names exactly one of revisionName / latestRevision: true,
 * percents add up to 100, tags are unique. (Percent range and tag format are field rules.)
 * The decisions are the rules' (rules/traffic-rules.ts, whose CEL twins the CRD carries); this
 * adds where and why for each broken one.
 */
export function checkTraffic(functionName: unknown, traffic: unknown): ValidationError[] {
  if (!Array.isArray(traffic) || traffic.length === 0) return [];
  const errors: ValidationError[] = [];

  traffic.forEach((t, i) => {
    if (!isRecord(t)) return;
    const at = `spec.traffic[${i}]`;
    if (!TRAFFIC_REVISION_CONFLICT.holds(t)) {
      errors.push({ path: `${at}.revisionName`, reason: 'traffic_revision_conflict', message: REASONS.traffic_revision_conflict });
    } else if (!TRAFFIC_REVISION_MISSING.holds(t)) {
      errors.push({ path: at, reason: 'traffic_revision_missing', message: REASONS.traffic_revision_missing });
    }
    const name = t.revisionName;
    if (typeof name === 'string' && name !== '' && typeof functionName === 'string' && !revisionOf(functionName, name)) {
      errors.push({
        path: `${at}.revisionName`,
        reason: 'traffic_revision_foreign',
        message: `"${name}" is not a revision of ${functionName}: revisions are named "${functionName}-NNNNN"`,
      });
    }
  });

  if (!TAGS_UNIQUE.holds(traffic)) {
    const tags = traffic.map((t) => (isRecord(t) ? t.tag : undefined));
    for (const { index, first } of duplicates(tags)) {
      errors.push({
        path: `spec.traffic[${index}].tag`,
        reason: 'tag_duplicate',
        message: `tag "${String(tags[index])}" is already used by spec.traffic[${first}]: ${REASONS.tag_duplicate}`,
      });
    }
  }

  if (!TRAFFIC_SUM.holds(traffic)) {
    errors.push({ path: 'spec.traffic', reason: 'traffic_sum', message: `traffic percents add up to ${trafficSum(traffic)}: ${REASONS.traffic_sum}` });
  }
  return errors;
}
