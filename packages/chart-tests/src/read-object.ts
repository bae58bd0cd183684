import { ApiException, type KubernetesObject, type KubernetesObjectApi } from '@kubernetes/client-node';

/** An object of the cluster as the API server has it now, or undefined when there is none (404). */
export async function readObject<T extends KubernetesObject>(objects: KubernetesObjectApi, apiVersion: string, kind: string, name: string, namespace: string): Promise<T | undefined> {
  try {
    return await objects.read<T>({ apiVersion, kind, metadata: { name, namespace } });
  } catch (err) {
    if (err instanceof ApiException && err.code === 404) return undefined;
    throw err;
  }
}
