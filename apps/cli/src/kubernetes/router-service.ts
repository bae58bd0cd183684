/**
 * Where a release's router is in a cluster, for `orrery invoke --kubeconfig`: the chart's router
 * Service (label app.kubernetes.io/component=router) with its function-traffic port named `http`,
 * reached through the API server's services proxy — the way `kubectl proxy` would, with no
 * port-forward (the release's router-admin Service carries the same label but only an `admin`
 * port, so it never matches).
 */
import type { ListedService, OperatorService } from './operator-service.ts';

export const ROUTER_SELECTOR = 'app.kubernetes.io/component=router';
/** The Service port function traffic is served on (charts/orrery/templates/router-service.yaml). */
export const ROUTER_PORT_NAME = 'http';

export function pickRouterService(namespace: string, services: readonly ListedService[]): OperatorService | { error: string } {
  const candidates = services.filter((s) => s.ports.some((p) => p.name === ROUTER_PORT_NAME));
  if (candidates.length === 1) return { namespace, name: candidates[0]!.name, port: ROUTER_PORT_NAME };
  if (candidates.length === 0) {
    return {
      error: `no Orrery router Service in namespace ${namespace} (label ${ROUTER_SELECTOR} with a port named ${ROUTER_PORT_NAME}): install the chart there (helm install orrery charts/orrery -n ${namespace} --create-namespace), or name the release's namespace with --orrery-namespace / $ORRERY_NAMESPACE`,
    };
  }
  return {
    error: `several Orrery router Services in namespace ${namespace} (${candidates.map((s) => s.name).join(', ')}): one release per namespace is supported here; call the one you mean with --router-url (kubectl port-forward)`,
  };
}

/**
 * The API server's own refusal in an answer that came back through the services proxy (a
 * `Status` object: RBAC, no ready endpoint, no such Service), or undefined when the answer is the
 * router's or the function's and is shown as is.
 */
export function apiServerStatus(status: number, contentType: string | null, body: string): string | undefined {
  if (status < 400 || !contentType?.startsWith('application/json')) return undefined;
  try {
    const parsed = JSON.parse(body) as { kind?: unknown; apiVersion?: unknown; message?: unknown };
    return parsed.kind === 'Status' && parsed.apiVersion === 'v1' && typeof parsed.message === 'string' ? parsed.message : undefined;
  } catch {
    return undefined;
  }
}
