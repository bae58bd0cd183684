import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import type { ValidationError } from './types.ts';

/**
 * Cross-field rules of a function template (Function.spec.template and Revision.spec.template).
 * Field-level rules (ranges, formats) live in the schema; these need two fields at once.
 */
export function checkTemplate(template: unknown, at: string): ValidationError[] {
  if (!isRecord(template)) return [];
  const errors: ValidationError[] = [];

  const source = template.source;
  if (isRecord(source)) {
    const set = ['inline', 'configMapRef', 'url'].filter((k) => source[k] !== undefined && source[k] !== '');
    if (set.length !== 1) {
      errors.push({
        path: `${at}.source`,
        reason: 'source_exactly_one',
        message: `${set.length === 0 ? 'no source is set' : `${set.join(' and ')} are all set`}: ${REASONS.source_exactly_one}`,
      });
    }
  }

  if (Array.isArray(template.env)) {
    const seen = new Set<string>();
    template.env.forEach((e, i) => {
      if (!isRecord(e) || typeof e.name !== 'string') return;
      if (seen.has(e.name)) {
        errors.push({ path: `${at}.env[${i}].name`, reason: 'env_duplicate', message: `env "${e.name}" is listed twice: ${REASONS.env_duplicate}` });
      }
      seen.add(e.name);
    });
  }

  errors.push(...checkScaleBounds(template.autoscaling, `${at}.autoscaling`));
  return errors;
}

/** Knative: minScale ≤ maxScale and activationScale ≤ maxScale, where maxScale 0 means unbounded. */
function checkScaleBounds(autoscaling: unknown, at: string): ValidationError[] {
  if (!isRecord(autoscaling)) return [];
  const { minScale, maxScale, activationScale } = autoscaling;
  if (typeof maxScale !== 'number' || maxScale <= 0) return [];
  const errors: ValidationError[] = [];
  if (typeof minScale === 'number' && minScale > maxScale) {
    errors.push({
      path: `${at}.minScale`,
      reason: 'autoscaling_scale_bounds',
      message: `minScale ${minScale} exceeds maxScale ${maxScale}: ${REASONS.autoscaling_scale_bounds}`,
    });
  }
  if (typeof activationScale === 'number' && activationScale > maxScale) {
    errors.push({
      path: `${at}.activationScale`,
      reason: 'autoscaling_activation_scale',
      message: `activationScale ${activationScale} exceeds maxScale ${maxScale}: ${REASONS.autoscaling_activation_scale}`,
    });
  }
  return errors;
}
