import type { Model } from './wgl.ts';

/**
 * The registry as a sequential object for the checker: a map instanceId → value (the value
 * stands for the registered content, e.g. a label). Outputs of "unknown" operations (timeouts,
 * connection errors) accept anything: the write may or may not have happened.
 */
export type RegistryInput =
  | { kind: 'register'; id: string; value: string }
  | { kind: 'deregister'; id: string }
  | { kind: 'heartbeat'; id: string }
  /** A read of the whole registry, or of one instance when `id` is set (per-instance partitions). */
  | { kind: 'query'; id?: string };

export type RegistryOutput =
  | { kind: 'ok' }
  | { kind: 'not_found' }
  | { kind: 'unknown' }
  /** Query answer: sorted `id=value` strings. */
  | { kind: 'instances'; entries: string[] };

export type RegistryState = ReadonlyMap<string, string>;

function render(state: RegistryState): string[] {
  return [...state].map(([k, v]) => `${k}=${v}`).sort();
}

export const registryModel: Model<RegistryState, RegistryInput, RegistryOutput> = {
  init: () => new Map(),
  key: (s) => render(s).join(','),
  step(state, input, output) {
    const unknown = output.kind === 'unknown';
    switch (input.kind) {
      case 'register': {
        if (!unknown && output.kind !== 'ok') return { ok: false, state };
        const next = new Map(state);
        next.set(input.id, input.value);
        return { ok: true, state: next };
      }
      case 'deregister': {
        const present = state.has(input.id);
        if (!unknown && output.kind !== (present ? 'ok' : 'not_found')) return { ok: false, state };
        if (!present) return { ok: true, state };
        const next = new Map(state);
        next.delete(input.id);
        return { ok: true, state: next };
      }
      case 'heartbeat': {
        const present = state.has(input.id);
        return { ok: unknown || output.kind === (present ? 'ok' : 'not_found'), state };
      }
      case 'query': {
        if (unknown) return { ok: true, state };
        if (output.kind !== 'instances') return { ok: false, state };
        const want = render(state);
        const got = output.entries;
        return { ok: want.length === got.length && want.every((x, i) => x === got[i]), state };
      }
    }
  },
};

/** Failed reads dropped, failed writes maybe-applied: see prepare-history.ts (shared with the candidate-set model). */
export { prepareHistory } from './prepare-history.ts';
