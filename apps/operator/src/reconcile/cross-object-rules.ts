import { type Environment, type OrreryFunction, declaredKeyspace, keyspaceHeldBy, keyspaceTakenMessage, validate } from '@orrery/spec';

/** Rules that read another object: the webhook checks them at admission, the reconciler again. */
const CROSS_OBJECT_REASONS = new Set(['state_environment_infinite']);

/**
 * Why a Function cannot be rolled out given the objects it names now, or undefined. The webhook
 * refuses such a Function at admission, but the Environment can change afterwards (or the
 * webhook was off), so the reconciler asks again: the same rule and words as `orrery validate`.
 */
export function crossObjectProblem(fn: OrreryFunction, environment: Environment | undefined): { reason: string; message: string } | undefined {
  const problem = validate(fn, { environment: () => environment }).find((e) => CROSS_OBJECT_REASONS.has(e.reason));
  return problem ? { reason: problem.reason, message: problem.message } : undefined;
}

/**
 * Why a Function may not use the keyspace it declares, or undefined: another Function of
 * `functions` owns it by the shared ownership order (first created, then name; invariant S1).
 * Admission refuses a second declaration, but on Kubernetes two racing creates can both be
 * admitted (and a webhook can be off); the reconcilers ask again so that only the owner ever
 * gets the keyspace's token. The webhook's words, naming the owner.
 */
export function keyspaceProblem(fn: OrreryFunction, functions: Iterable<unknown>): { reason: string; message: string } | undefined {
  const owner = keyspaceHeldBy(fn, functions);
  const declared = declaredKeyspace(fn);
  if (!owner || !declared) return undefined;
  return { reason: 'state_keyspace_taken', message: keyspaceTakenMessage(declared.namespace, declared.keyspace, owner) };
}
