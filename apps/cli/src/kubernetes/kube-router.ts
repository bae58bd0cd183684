/**
 * The router of the Orrery release in a cluster, reached through the Kubernetes API server's
 * services proxy with the kubeconfig's credentials (what the kubeconfig's user may do is what
 * RBAC on services/proxy allows): `orrery invoke` on Kubernetes, without a port-forward.
 */
import { refusalOf, routeRefusal } from './admin-route-errors.ts';
import { kubeFetch, type KubeFetchInit } from './kube-fetch.ts';
import type { KubeTarget } from './kube-target.ts';
import { servicesProxyUrl } from './operator-service.ts';
import { findReleaseService } from './release-service.ts';
import { apiServerStatus, pickRouterService, ROUTER_SELECTOR } from './router-service.ts';

export interface KubeRouter {
  /** The router's base URL through the services proxy (function paths are appended to it). */
  base: string;
  /** Where it is, for messages. */
  where: string;
  /** Sends a request; an API server refusal on the way becomes `refusal` (the answer is not the router's). */
  send(url: string, init: KubeFetchInit): Promise<{ res: Response; body: Buffer; refusal?: string }>;
}

export async function openKubeRouter(target: KubeTarget, namespace: string): Promise<KubeRouter | { error: string }> {
  const found = await findReleaseService(target, namespace, 'router', ROUTER_SELECTOR, pickRouterService);
  if ('error' in found) return found;
  const { kc, server, svc, facts } = found;
  const via = kubeFetch(kc);
  const where = `Service ${namespace}/${svc.name} through the API server at ${server}`;
  return {
    base: servicesProxyUrl(server, svc),
    where,
    async send(url, init) {
      let res: Response;
      try {
        res = await via(url, init);
      } catch (err) {
        return { res: new Response(null, { status: 599 }), body: Buffer.alloc(0), refusal: refusalOf('proxy', err, facts) };
      }
      const body = Buffer.from(await res.arrayBuffer());
      const status = apiServerStatus(res.status, res.headers.get('content-type'), body.toString('utf8'));
      if (status === undefined) return { res, body };
      return { res, body, refusal: routeRefusal('proxy', res.status, status, facts) };
    },
  };
}
