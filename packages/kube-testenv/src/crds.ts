import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiextensionsV1Api, type KubeConfig, KubernetesObjectApi, type KubernetesObject, PatchStrategy } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { eventually } from './eventually.ts';

/**
 * Server-side applies every CRD in `dir` (as a field manager of its own, forced: the test owns
 * them) and waits until the API server reports each Established, so objects of those kinds can
 * be created at once.
 */
export async function installCrds(kc: KubeConfig, dir: string): Promise<string[]> {
  const objects = KubernetesObjectApi.makeApiClient(kc);
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as KubernetesObject | null;
      if (!crd?.metadata?.name) continue;
      await objects.patch(crd, undefined, undefined, 'kube-testenv', true, PatchStrategy.ServerSideApply);
      names.push(crd.metadata.name);
    }
  }
  for (const name of names) {
    await eventually(`CRD ${name} Established`, async () => {
      const crd = await ext.readCustomResourceDefinition({ name });
      return crd.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True');
    });
  }
  return names;
}
