/**
 * `ctx` for one run of a replayable invocation (docs/state.md "Replayed invocations"). The router
 * sends `Orrery-Invocation-Id` only to Functions with `spec.template.onWorkerLoss: replay`, and
 * the same id on every run of a request; here `ctx.state` is numbered by it, so a run after the
 * first worker died reads what the first read and writes once.
 */
import { isInvocationId } from '@orrery/spec/invocation-id';
import type { FunctionContext } from './function-context.ts';

/**
 * How long statesvc keeps the answers a run records: every run of the request must find the
 * earlier runs' answers. The router gives each run up to the revision's timeout and tries at
 * most three times by default (`--dial-retries 2`), so four timeouts, and at least a minute.
 */
export function replayRetentionSeconds(timeoutMs: number): number {
  return Math.max(60, 4 * Math.ceil(timeoutMs / 1000));
}

/** The ctx of a request carrying `invocationId` (the header's value, or undefined): unchanged without a well-formed one. */
export function bindInvocation(ctx: FunctionContext, invocationId: string | undefined, timeoutMs: number): FunctionContext {
  // Only the router mints ids (32 hex digits, the spec's rule — not the SDK's looser one for ids
  // an author numbers calls by); anything else (a caller on the pod network) gets no numbering.
  if (invocationId === undefined || !isInvocationId(invocationId)) return ctx;
  const state = ctx.state?.withInvocation(invocationId, { retentionSeconds: replayRetentionSeconds(timeoutMs) });
  return { ...ctx, state, invocationId };
}
