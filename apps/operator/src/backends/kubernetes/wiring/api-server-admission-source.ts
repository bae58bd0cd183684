import { GROUP_VERSION, environmentOf } from '@orrery/spec';
import type { AdmissionSource } from '../../../webhook/read-through-lookup.ts';
import type { KubeClient } from '../kube-client.ts';

/**
 * What the webhook reads from the API server when its informers miss something. An operator
 * that watches one namespace (--namespace) reads only that one: a review for another namespace
 * (which the chart's webhook never sends; anyone on the pod network could) is judged by the
 * caches alone, so the webhook cannot be used to look into namespaces the operator does not manage.
 */
export function apiServerAdmissionSource(client: KubeClient, watchNamespace?: string): AdmissionSource {
  const managed = (ns: string) => watchNamespace === undefined || ns === watchNamespace;
  return {
    async environment(ns, name) {
      if (!managed(ns)) return undefined;
      return environmentOf(await client.get(GROUP_VERSION, 'Environment', ns, name));
    },
    async functions(ns) {
      if (!managed(ns)) return [];
      return (await client.list(GROUP_VERSION, 'Function', ns)).items;
    },
  };
}
