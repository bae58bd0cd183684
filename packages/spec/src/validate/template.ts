import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { ACTIVATION_SCALE_BOUND, envDuplicates, ENV_NAMES_UNIQUE, ENV_VALUE_OR_SECRET, SCALE_BOUNDS, SOURCE_EXACTLY_ONE, sourcesSet } from './rules/template-rules.ts';
import type { ValidationError } from './types.ts';

/**
 * Cross-field rules of a function template (Function.spec.template and Revision.spec.template).
 * Field-level rules (ranges, formats) live in the schema; these need two fields at once. The
 * decisions are the rules' in rules/template-rules.ts (the CRD carries their CEL twins).
 */
export function checkTemplate(template: unknown, at: string): ValidationError[] {
  if (!isRecord(template)) return [];
  const errors: ValidationError[] = [];

  const source = template.source;
  if (isRecord(source) && !SOURCE_EXACTLY_ONE.holds(source)) {
    const set = sourcesSet(source);
    errors.push({
      path: `${at}.source`,
      reason: 'source_exactly_one',
      message: `${set.length === 0 ? 'no source is set' : `${set.join(' and ')} are all set`}: ${REASONS.source_exactly_one}`,
    });
  }

  if (!ENV_NAMES_UNIQUE.holds(template.env)) {
    const env = template.env as Array<{ name?: unknown }>;
    for (const { index } of envDuplicates(env)) {
      const name = String(env[index]?.name);
      errors.push({ path: `${at}.env[${index}].name`, reason: 'env_duplicate', message: `env "${name}" is listed twice: ${REASONS.env_duplicate}` });
    }
  }

  if (Array.isArray(template.env)) {
    template.env.forEach((e, index) => {
      if (!ENV_VALUE_OR_SECRET.holds(e)) {
        errors.push({ path: `${at}.env[${index}]`, reason: 'env_value_or_secret', message: `env "${String((e as { name?: unknown }).name)}" has both value and valueFrom: ${REASONS.env_value_or_secret}` });
      }
    });
  }

  errors.push(...checkScaleBounds(template.autoscaling, `${at}.autoscaling`));
  return errors;
}

/** Knative: minScale ≤ maxScale and activationScale ≤ maxScale, where maxScale 0 means unbounded. */
function checkScaleBounds(autoscaling: unknown, at: string): ValidationError[] {
  if (!isRecord(autoscaling)) return [];
  const { minScale, maxScale, activationScale } = autoscaling;
  const errors: ValidationError[] = [];
  if (!SCALE_BOUNDS.holds(autoscaling)) {
    errors.push({
      path: `${at}.minScale`,
      reason: 'autoscaling_scale_bounds',
      message: `minScale ${String(minScale)} exceeds maxScale ${String(maxScale)}: ${REASONS.autoscaling_scale_bounds}`,
    });
  }
  if (!ACTIVATION_SCALE_BOUND.holds(autoscaling)) {
    errors.push({
      path: `${at}.activationScale`,
      reason: 'autoscaling_activation_scale',
      message: `activationScale ${String(activationScale)} exceeds maxScale ${String(maxScale)}: ${REASONS.autoscaling_activation_scale}`,
    });
  }
  return errors;
}
