/**
 * The admin API of the Orrery release in a cluster, reached through the Kubernetes API server:
 * the operator's Service found by label in --orrery-namespace, the admin token read from the
 * Secret the operator generated (unless --token-file / $ORRERY_API_TOKEN gives one), and every
 * tRPC call sent to the services proxy path, authenticated to the API server with the
 * kubeconfig's credentials and to the admin API with X-Orrery-Authorization. No port-forward,
 * no Ingress: what the kubeconfig's user may do is what RBAC on services/proxy allows.
 */
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@orrery/api';
import { adminCredentialHeaders } from '../connection/admin-credential-header.ts';
import type { AdminApi } from '../connection/api-client.ts';
import { describeApiError } from '../connection/api-errors.ts';
import { proxyRefusal, refusalOf, routeRefusal } from './admin-route-errors.ts';
import { kubeFetch, type KubeFetchInit } from './kube-fetch.ts';
import type { KubeTarget } from './kube-target.ts';
import { ADMIN_TOKEN_KEY, OPERATOR_SELECTOR, adminTokenSecretName, pickOperatorService, servicesProxyTrpcUrl } from './operator-service.ts';
import { findReleaseService } from './release-service.ts';

/** A refusal of the API server on the way; carried as the cause of tRPC's error so it is reported as is. */
class AdminRouteError extends Error {}

export async function openKubeAdminApi(target: KubeTarget, o: { namespace: string; token?: string }): Promise<AdminApi | { error: string }> {
  const found = await findReleaseService(target, o.namespace, 'operator', OPERATOR_SELECTOR, pickOperatorService);
  if ('error' in found) return found;
  const { kc, core, server, svc, facts } = found;

  let token = o.token;
  if (!token) {
    const secret = adminTokenSecretName(svc.name);
    if (!secret) return { error: `the operator's Service ${o.namespace}/${svc.name} is not named <release>-operator, so its admin token Secret is unknown: pass the admin token with --token-file FILE` };
    facts.secret = secret;
    try {
      const s = await core.readNamespacedSecret({ namespace: o.namespace, name: secret });
      const b64 = s.data?.[ADMIN_TOKEN_KEY];
      token = b64 === undefined ? undefined : Buffer.from(b64, 'base64').toString('utf8').trim() || undefined;
    } catch (err) {
      return { error: refusalOf('read-secret', err, facts) };
    }
    if (!token) return { error: `Secret ${o.namespace}/${secret} holds no admin token under the key "${ADMIN_TOKEN_KEY}": pass the admin token with --token-file FILE` };
  }

  const viaKube = kubeFetch(kc);
  const where = `Service ${o.namespace}/${svc.name} through the API server at ${server}`;
  const client = createTRPCClient<AppRouter>({
    links: [
      httpLink({
        url: servicesProxyTrpcUrl(server, svc),
        headers: adminCredentialHeaders(token, 'kubernetes-proxy'),
        fetch: async (url, init) => {
          let res: Response;
          try {
            res = await viaKube(url as string | URL, init as KubeFetchInit);
          } catch (err) {
            throw new AdminRouteError(routeRefusal('proxy', undefined, (err as Error).message, facts));
          }
          const text = await res.text();
          const refusal = proxyRefusal(res.status, text, facts);
          if (refusal) throw new AdminRouteError(refusal);
          return new Response(text, { status: res.status, headers: res.headers });
        },
      }),
    ],
  });
  const tokenSource = o.token ? '--token-file / $ORRERY_API_TOKEN' : `Secret ${o.namespace}/${facts.secret}`;
  return {
    client,
    where,
    describeError(err) {
      if (err instanceof TRPCClientError && err.cause instanceof AdminRouteError) return err.cause.message;
      if (err instanceof TRPCClientError && (err.data as { code?: string } | undefined)?.code === 'UNAUTHORIZED') {
        return `the admin API behind ${where} refused the token from ${tokenSource}: ${err.message}`;
      }
      return describeApiError(err, where);
    },
  };
}
