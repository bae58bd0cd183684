import { deriveStateToken } from '@orrery/auth';
import { type OrreryFunction, effectiveKeyspace } from '@orrery/spec';
import type { StateCredentials } from '../backends/local/local-backend.ts';

/**
 * The scoped state credentials a stateful function's workers get (deploy env or Secret, or the
 * specialize body): the keyspace token derived from the master key. None without `spec.state`,
 * or when the operator has no statesvc URL or master key.
 */
export function stateCredentials(fn: OrreryFunction, o: { masterKey?: Buffer; stateUrl?: string }): StateCredentials | undefined {
  if (!fn.spec.state || !o.masterKey || !o.stateUrl) return undefined;
  const keyspace = effectiveKeyspace(fn.metadata.name, fn.spec.state);
  return { url: o.stateUrl, namespace: fn.metadata.namespace, keyspace, token: deriveStateToken(o.masterKey, fn.metadata.namespace, keyspace) };
}
