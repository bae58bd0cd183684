import { type Environment, type OrreryFunction, validate } from '@orrery/spec';

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
