/**
 * Redis key layout: `<prefix>:{<namespace>}:e:<entityId>`. The braces make the namespace a Redis
 * Cluster hash tag, so every entity of one table lives in one slot (MGET and pipelines stay legal).
 */

export function entityKeyStem(prefix: string, namespace: string): string {
  return `${prefix}:{${namespace}}:e:`;
}

export function entityKey(prefix: string, namespace: string, id: string): string {
  return entityKeyStem(prefix, namespace) + id;
}

/** SCAN MATCH pattern for one namespace; glob metacharacters in prefix/namespace are escaped. */
export function namespaceScanPattern(prefix: string, namespace: string): string {
  return entityKeyStem(prefix, namespace).replace(/[*?[\]\\]/g, '\\$&') + '*';
}

/** Why a namespace cannot be used, or undefined when it can. Braces would move the hash tag. */
export function namespaceProblem(namespace: unknown): string | undefined {
  if (typeof namespace !== 'string' || namespace.length === 0) return 'namespace must be a non-empty string';
  if (/[{}]/.test(namespace)) return 'namespace must not contain "{" or "}" (it is the Redis Cluster hash tag)';
  return undefined;
}

export function keyPrefixProblem(prefix: string): string | undefined {
  if (prefix.length === 0) return 'keyPrefix must be non-empty';
  if (/[{}]/.test(prefix)) return 'keyPrefix must not contain "{" or "}" (the namespace is the hash tag)';
  return undefined;
}
