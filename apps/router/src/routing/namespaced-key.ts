/**
 * `<namespace>/<name>`: how the router keys a function or a revision (route table, endpoint index,
 * activator queues and modes, stats, teleport buckets). Kubernetes names cannot contain `/`, so
 * the key is unambiguous; build it here, never by hand.
 */
export function namespacedKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}
