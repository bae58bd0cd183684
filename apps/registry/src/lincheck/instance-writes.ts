/**
 * The write half of both registry models (registry-model.ts, candidate-set-model.ts) and the step
 * they share: register, deregister and heartbeat on a map instanceId → content. An "unknown"
 * output (timeout, connection error) accepts anything: the write may or may not have happened.
 */
export type InstanceWrite<V> =
  | { kind: 'register'; id: string; content: V }
  | { kind: 'deregister'; id: string }
  | { kind: 'heartbeat'; id: string };

export type WriteOutput = { kind: 'ok' } | { kind: 'not_found' } | { kind: 'unknown' } | { kind: 'instances'; entries: string[] };

export function stepInstanceWrite<V>(state: ReadonlyMap<string, V>, write: InstanceWrite<V>, output: WriteOutput): { ok: boolean; state: ReadonlyMap<string, V> } {
  const unknown = output.kind === 'unknown';
  const present = state.has(write.id);
  switch (write.kind) {
    case 'register': {
      if (!unknown && output.kind !== 'ok') return { ok: false, state };
      return { ok: true, state: new Map(state).set(write.id, write.content) };
    }
    case 'deregister': {
      if (!unknown && output.kind !== (present ? 'ok' : 'not_found')) return { ok: false, state };
      if (!present) return { ok: true, state };
      const next = new Map(state);
      next.delete(write.id);
      return { ok: true, state: next };
    }
    case 'heartbeat':
      return { ok: unknown || output.kind === (present ? 'ok' : 'not_found'), state };
  }
}

/** A query's answer against the model's: the same sorted entries. */
export function sameEntries(want: readonly string[], got: readonly string[]): boolean {
  return want.length === got.length && want.every((x, i) => x === got[i]);
}

/** What both models take: the three writes (a register carries its content) and a query. */
type ModelInput = { kind: 'register'; id: string } | { kind: 'deregister'; id: string } | { kind: 'heartbeat'; id: string } | { kind: 'query' };

/**
 * The step of both models: a write goes through stepInstanceWrite (`content` is what a register
 * stores), a query's answer must be the model's `expected` one; an "unknown" answer (failed or
 * timed out) accepts anything.
 */
export function instanceModelStep<V, I extends ModelInput>(
  content: (register: Extract<I, { kind: 'register' }>) => V,
  expected: (state: ReadonlyMap<string, V>, query: Extract<I, { kind: 'query' }>) => string[],
): (state: ReadonlyMap<string, V>, input: I, output: WriteOutput) => { ok: boolean; state: ReadonlyMap<string, V> } {
  return (state, input, output) => {
    if (input.kind === 'query') {
      if (output.kind === 'unknown') return { ok: true, state };
      if (output.kind !== 'instances') return { ok: false, state };
      return { ok: sameEntries(expected(state, input as Extract<I, { kind: 'query' }>), output.entries), state };
    }
    if (input.kind === 'register') return stepInstanceWrite(state, { kind: 'register', id: input.id, content: content(input as Extract<I, { kind: 'register' }>) }, output);
    return stepInstanceWrite(state, input as InstanceWrite<V>, output);
  };
}
