/**
 * The first steps of reaching a component of the Orrery release through the API server's
 * services proxy (the admin API, the router): the kubeconfig, and the component's Service in the
 * release namespace, found by its label and picked by `pick`. What goes wrong on the way comes
 * back as `{ error }`, already worded for the user (see admin-route-errors.ts).
 */
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { refusalOf, type RouteFacts } from './admin-route-errors.ts';
import { loadKubeConfig } from './kube-store.ts';
import type { KubeTarget } from './kube-target.ts';
import type { ListedService, OperatorService } from './operator-service.ts';

export interface ReleaseService {
  kc: KubeConfig;
  core: CoreV1Api;
  /** The API server's URL. */
  server: string;
  svc: OperatorService;
  /** Where the route leads, for the refusals of the later steps (the Service's name filled in). */
  facts: RouteFacts;
}

export async function findReleaseService(
  target: KubeTarget,
  namespace: string,
  component: NonNullable<RouteFacts['component']>,
  labelSelector: string,
  pick: (namespace: string, services: readonly ListedService[]) => OperatorService | { error: string },
): Promise<ReleaseService | { error: string }> {
  let kc: KubeConfig;
  try {
    kc = loadKubeConfig(target);
  } catch (err) {
    return { error: (err as Error).message };
  }
  const server = kc.getCurrentCluster()!.server;
  const core = kc.makeApiClient(CoreV1Api);
  const facts: RouteFacts = { server, namespace, component };
  let listed: Awaited<ReturnType<CoreV1Api['listNamespacedService']>>;
  try {
    listed = await core.listNamespacedService({ namespace, labelSelector });
  } catch (err) {
    return { error: refusalOf('list-services', err, facts) };
  }
  const svc = pick(
    namespace,
    listed.items.map((s) => ({ name: s.metadata?.name ?? '', ports: (s.spec?.ports ?? []).map((p) => ({ name: p.name, port: p.port })) })),
  );
  if ('error' in svc) return svc;
  facts.service = svc.name;
  return { kc, core, server, svc, facts };
}
