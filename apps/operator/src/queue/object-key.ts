/**
 * Work queues, caches and the KPA key every namespaced object as `namespace/name`: a Kubernetes
 * name never contains a slash, so the first one splits the key.
 */
export const objectKey = (namespace: string, name: string): string => `${namespace}/${name}`;

export function splitKey(key: string): [namespace: string, name: string] {
  const i = key.indexOf('/');
  return [key.slice(0, i), key.slice(i + 1)];
}
