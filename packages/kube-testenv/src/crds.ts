import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiextensionsV1Api, type KubeConfig } from '@kubernetes/client-node';
import { parseAllDocuments } from 'yaml';
import { eventually } from './eventually.ts';
import { applyCrd } from './raw-request.ts';

/**
 * Server-side applies every CRD in `dir` (as a field manager of its own, forced: the test owns
 * them) and waits until the API server reports each Established, so objects of those kinds can
 * be created at once. Sent as raw JSON: client-node's typed model would drop the CEL rules.
 */
export async function installCrds(kc: KubeConfig, dir: string): Promise<string[]> {
  const ext = kc.makeApiClient(ApiextensionsV1Api);
  const names: string[] = [];
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort()) {
    for (const doc of parseAllDocuments(readFileSync(join(dir, file), 'utf8'))) {
      const crd = doc.toJS() as { metadata?: { name?: string } } | null;
      const name = crd?.metadata?.name;
      if (!name) continue;
      const r = await applyCrd(kc, { ...crd, metadata: { ...crd.metadata, name } });
      if (r.status >= 300) throw new Error(`CRD ${name} refused (${r.status}): ${JSON.stringify(r.body)}`);
      names.push(name);
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
