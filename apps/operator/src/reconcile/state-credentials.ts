import { deriveStateToken, STATE_PLACEHOLDER_TOKEN } from '@orrery/auth';
import { type OrreryFunction, type StateCredentials, effectiveKeyspace, keyspaceHeldBy } from '@orrery/spec';

/**
 * The scoped state credentials a stateful function's workers get (deploy env or Secret, or the
 * specialize body): the keyspace token derived from the master key. None without `spec.state`
 * or a statesvc URL, and none when another of `functions` owns the keyspace (invariant S1: the
 * token is derived from namespace and keyspace alone, so a second declarer would get the
 * owner's token). Without a master key (development, statesvc --insecure-pass-through) the
 * worker still gets its token file, holding STATE_PLACEHOLDER_TOKEN, so `ctx.state` works the
 * same (RFC-0023: the fetcher writes a placeholder; the SDK contract does not change).
 */
export function stateCredentials(fn: OrreryFunction, o: { masterKey?: Buffer; stateUrl?: string }, functions: Iterable<unknown>): StateCredentials | undefined {
  if (!fn.spec.state || !o.stateUrl) return undefined;
  if (keyspaceHeldBy(fn, functions) !== undefined) return undefined;
  const keyspace = effectiveKeyspace(fn.metadata.name, fn.spec.state);
  const token = o.masterKey ? deriveStateToken(o.masterKey, fn.metadata.namespace, keyspace) : STATE_PLACEHOLDER_TOKEN;
  return { url: o.stateUrl, namespace: fn.metadata.namespace, keyspace, token, ...(fn.spec.state.fencing === true ? { fencing: true } : {}) };
}
