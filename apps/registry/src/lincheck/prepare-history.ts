import type { Operation } from './wgl.ts';

/** Operations that change nothing: a failed one is dropped rather than kept as maybe-applied. */
const READS = new Set(['query', 'heartbeat']);

/**
 * Prepares a recorded history for the checker: failed reads (queries, heartbeats) are dropped
 * — they changed nothing — and failed writes (`output.kind === 'unknown'`: a timeout, a lost
 * answer, a 503) may have taken effect at any time after their call, so their return moves to
 * infinity, as porcupine does.
 */
export function prepareHistory<I extends { kind: string }, O extends { kind: string }>(ops: Array<Operation<I, O>>): Array<Operation<I, O>> {
  const out: Array<Operation<I, O>> = [];
  for (const op of ops) {
    if (op.output.kind !== 'unknown') {
      out.push(op);
      continue;
    }
    if (READS.has(op.input.kind)) continue;
    out.push({ ...op, ret: Number.POSITIVE_INFINITY });
  }
  return out;
}
