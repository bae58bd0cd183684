import { instanceModelStep } from './instance-writes.ts';
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
  // A query reads the whole registry: a per-instance partition holds only its instance.
  step: instanceModelStep<string, RegistryInput>((register) => register.value, (state) => render(state)),
};

/** Failed reads dropped, failed writes maybe-applied: see prepare-history.ts (shared with the candidate-set model). */
export { prepareHistory } from './prepare-history.ts';
