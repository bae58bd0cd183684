/**
 * What the hot-key alert rules read, from the two hot-key sources: each keyspace's hottest key
 * (statesvc) and each sticky function's hottest keys (routers, summed), labelled for the caller's
 * role — the key for an operator, its keyed hash for a viewer (the alert text must not show a
 * viewer what state.hotKeys would hide).
 */
import { effectiveKeyspace, type OrreryFunction, type StateHotKeysResponse } from '@orrery/spec';
import { hotKeyHasher, stateKeyScope, stickyKeyScope } from '../../hot-keys/hot-key-id.ts';
import type { MergedFunctionHotKeys } from '../../hot-keys/merge-sticky-hot-keys.ts';
import type { KeyspaceHotKeysInput, StickyHotKeysInput } from './alert-rules.ts';

export function hotKeyAlertInputs(
  state: StateHotKeysResponse | undefined,
  sticky: readonly MergedFunctionHotKeys[],
  fns: readonly OrreryFunction[],
  hashed: boolean,
  masterKey: Buffer | undefined,
): { keyspaces: KeyspaceHotKeysInput[]; sticky: StickyHotKeysInput[] } {
  const hash = hotKeyHasher(masterKey);
  const keyspaceOf = new Map(fns.filter((f) => f.spec.state).map((f) => [`${f.metadata.namespace}/${f.metadata.name}`, effectiveKeyspace(f.metadata.name, f.spec.state)]));
  return {
    keyspaces: (state?.keyspaces ?? []).map((k) => {
      const top = k.keys[0];
      return {
        namespace: k.namespace,
        keyspace: k.keyspace,
        rate: k.rate,
        top: top ? { label: hashed ? hash(stateKeyScope(k.namespace, k.keyspace), top.key) : top.key, rate: top.rate, share: top.share } : undefined,
      };
    }),
    sticky: sticky.map((f) => ({
      namespace: f.namespace,
      function: f.function,
      keyspace: keyspaceOf.get(`${f.namespace}/${f.function}`) ?? null,
      keys: f.keys.map((k) => ({ label: hashed ? hash(stickyKeyScope(f.namespace, f.function), k.key) : k.key, rate: k.rate, ownerBusyShare: k.ownerBusyShare, owner: k.owner })),
    })),
  };
}
