/**
 * The write half of both registry models (registry-model.ts, candidate-set-model.ts): register,
 * deregister and heartbeat on a map instanceId → content. An "unknown" output (timeout,
 * connection error) accepts anything: the write may or may not have happened.
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
