import { claimOf, declaredKeyspace, declaresNewKeyspace, keyspaceOwner } from './keyspace-owner.ts';
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
    const taken = keyspaceTaken(fn, lookup);
    if (taken) errors.push(taken);
  }
  return errors;
}

/** The words for a keyspace another Function owns: the webhook's, the stores', the CLI's and the reconcilers'. */
export function keyspaceTakenMessage(namespace: string, keyspace: string, owner: string): string {
  return `keyspace "${keyspace}" in namespace ${namespace} belongs to Function ${namespace}/${owner}: ${REASONS.state_keyspace_taken}`;
}

/**
 * RFC-0023 non-goal and S1: a keyspace belongs to one Function. A write that newly declares a
 * keyspace (see declaresNewKeyspace) is refused when another Function already declares it; the
 * message names the owner (the first in the ownership order among them).
 */
function keyspaceTaken(fn: Record<string, unknown>, lookup: ValidationLookup): ValidationError | undefined {
  if (!lookup.keyspaceHolders || !declaresNewKeyspace(lookup.previous, fn)) return undefined;
  const declared = declaredKeyspace(fn)!;
  const self = claimOf(fn)!;
  const owner = keyspaceOwner(lookup.keyspaceHolders(declared.namespace, declared.keyspace).filter((c) => c.name !== self.name));
  if (!owner) return undefined;
  const path = isRecord(fn.spec) && isRecord(fn.spec.state) && typeof fn.spec.state.keyspace === 'string' ? 'spec.state.keyspace' : 'spec.state';
  return { path, reason: 'state_keyspace_taken', message: keyspaceTakenMessage(declared.namespace, declared.keyspace, owner.name) };
}
