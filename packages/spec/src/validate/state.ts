import { isRecord } from './path.ts';
import { REASONS } from './reasons.ts';
import { STATE_NOT_ON_CONTAINER } from './rules/state-rules.ts';
import type { ValidationError, ValidationLookup } from './types.ts';

/**
 * Fission RFC-0023: keyed state needs a per-function token delivered by the fetcher into a
 * per-function worker. The container executor has no fetcher, and an `infinite` Environment
 * shares one worker between functions, so neither can carry state.
 * (Keyspace charset, quotas, TTL and sticky are field rules in StateConfigSchema.)
 */
export function checkStatePlacement(fn: Record<string, unknown>, lookup?: ValidationLookup): ValidationError[] {
  const spec = fn.spec;
  if (!isRecord(spec) || !isRecord(spec.state)) return [];
  const template = isRecord(spec.template) ? spec.template : {};
  const errors: ValidationError[] = [];

  if (!STATE_NOT_ON_CONTAINER.holds(spec)) {
    errors.push({ path: 'spec.state', reason: 'state_executor_container', message: REASONS.state_executor_container });
  }

  if (lookup) {
    const metadata = isRecord(fn.metadata) ? fn.metadata : {};
    const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : 'default';
    const envName = typeof template.environment === 'string' ? template.environment : 'nodejs';
    const env = lookup.environment(namespace, envName);
    if (env?.spec.allowedFunctionsPerContainer === 'infinite') {
      errors.push({
        path: 'spec.state',
        reason: 'state_environment_infinite',
        message: `Environment ${namespace}/${envName} is "infinite": ${REASONS.state_environment_infinite}`,
      });
    }
  }
  return errors;
}
