import type { FunctionSpec, TrafficTarget } from '../kinds/function.ts';
import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import type { ValidationError } from './types.ts';

/** Traffic as it is routed: an empty list means 100 % to the latest ready revision. */
export function effectiveTraffic(spec: Pick<FunctionSpec, 'traffic'> | { traffic?: TrafficTarget[] }): TrafficTarget[] {
  const traffic = spec.traffic ?? [];
  return traffic.length > 0 ? traffic : [{ latestRevision: true, percent: 100 }];
}

/**
 * Knative route rules: every target names exactly one of revisionName / latestRevision: true,
 * percents add up to 100, tags are unique. (Percent range and tag format are field rules.)
 */
export function checkTraffic(functionName: unknown, traffic: unknown): ValidationError[] {
  if (!Array.isArray(traffic) || traffic.length === 0) return [];
  const errors: ValidationError[] = [];
  const tags = new Map<string, number>();
  let sum = 0;
  let sumKnown = true;

  traffic.forEach((t, i) => {
    if (!isRecord(t)) return;
    const at = `spec.traffic[${i}]`;
    const named = typeof t.revisionName === 'string' && t.revisionName !== '';
    if (t.latestRevision === true && named) {
      errors.push({ path: `${at}.revisionName`, reason: 'traffic_revision_conflict', message: REASONS.traffic_revision_conflict });
    } else if (t.latestRevision !== true && !named) {
      errors.push({ path: at, reason: 'traffic_revision_missing', message: REASONS.traffic_revision_missing });
    }
    if (named && typeof functionName === 'string' && !String(t.revisionName).startsWith(`${functionName}-`)) {
      errors.push({
        path: `${at}.revisionName`,
        reason: 'traffic_revision_foreign',
        message: `"${String(t.revisionName)}" is not a revision of ${functionName}: revisions are named "${functionName}-NNNNN"`,
      });
    }
    if (typeof t.tag === 'string') {
      const first = tags.get(t.tag);
      if (first !== undefined) {
        errors.push({
          path: `${at}.tag`,
          reason: 'tag_duplicate',
          message: `tag "${t.tag}" is already used by spec.traffic[${first}]: ${REASONS.tag_duplicate}`,
        });
      } else tags.set(t.tag, i);
    }
    const percent = t.percent ?? 0;
    if (typeof percent === 'number' && Number.isFinite(percent)) sum += percent;
    else sumKnown = false;
  });

  if (sumKnown && sum !== 100) {
    errors.push({ path: 'spec.traffic', reason: 'traffic_sum', message: `traffic percents add up to ${sum}: ${REASONS.traffic_sum}` });
  }
  return errors;
}
