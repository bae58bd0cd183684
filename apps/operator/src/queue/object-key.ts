/**
 * Work queues, caches and the KPA key every namespaced object as `namespace/name`: a Kubernetes
 * name never contains a slash, so the first one splits the key.
 */
export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export function splitKey(key: string): [namespace: string, name: string] {
  const i = key.indexOf('/');
  // Every key is made by objectKey: one without a slash is a caller's bug, not a name to guess at.
  if (i <= 0 || i === key.length - 1) throw new Error(`not a namespace/name key: ${JSON.stringify(key)}`);
  return [key.slice(0, i), key.slice(i + 1)];
}
