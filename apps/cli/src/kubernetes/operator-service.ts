/**
 * Where the operator's admin API is in a cluster, decided from what the API server lists: the
 * chart's operator Service (label app.kubernetes.io/component=operator, whatever the release is
 * called) and its port named `http`, reached through the API server's services proxy. The
 * release's webhook Service carries the same label but only an `https` port, so it never matches.
 */
export const DEFAULT_ORRERY_NAMESPACE = 'orrery-system';
export const OPERATOR_SELECTOR = 'app.kubernetes.io/component=operator';
/** The Service port the admin API (/trpc/) is served on (charts/orrery/templates/operator-service.yaml). */
export const ADMIN_PORT_NAME = 'http';
/** Data key of the admin token in the Secret the operator generates (chart value admin.token.key). */
export const ADMIN_TOKEN_KEY = 'token';

export interface ListedService {
  name: string;
  ports: ReadonlyArray<{ name?: string; port: number }>;
}

export interface OperatorService {
  namespace: string;
  name: string;
  /** The port as the proxy path names it: the port's name. */
  port: string;
}

/** The one operator Service of the namespace, or what to do when there is none or several. */
export function pickOperatorService(namespace: string, services: readonly ListedService[]): OperatorService | { error: string } {
  const candidates = services.filter((s) => s.ports.some((p) => p.name === ADMIN_PORT_NAME));
  if (candidates.length === 1) return { namespace, name: candidates[0]!.name, port: ADMIN_PORT_NAME };
  if (candidates.length === 0) {
    return {
      error: `no Orrery operator Service in namespace ${namespace} (label ${OPERATOR_SELECTOR} with a port named ${ADMIN_PORT_NAME}): install the chart there (helm install orrery charts/orrery -n ${namespace} --create-namespace), or name the release's namespace with --orrery-namespace / $ORRERY_NAMESPACE`,
    };
  }
  return {
    error: `several Orrery operator Services in namespace ${namespace} (${candidates.map((s) => s.name).join(', ')}): one release per namespace is supported here; reach the one you mean with --api-url (kubectl port-forward) and --token-file`,
  };
}

/**
 * A Service's base URL through the API server's services proxy:
 * `<server>/api/v1/namespaces/<ns>/services/http:<svc>:<port>/proxy`. The server may carry a
 * path of its own (a proxying front such as Rancher's), which is kept.
 */
export function servicesProxyUrl(server: string, svc: OperatorService): string {
  const e = encodeURIComponent;
  return `${server.replace(/\/+$/, '')}/api/v1/namespaces/${e(svc.namespace)}/services/http:${e(svc.name)}:${e(svc.port)}/proxy`;
}

/** The tRPC base URL of the admin API through the services proxy. */
export function servicesProxyTrpcUrl(server: string, svc: OperatorService): string {
  return `${servicesProxyUrl(server, svc)}/trpc`;
}

/**
 * The Secret the operator generates the admin token into: `<fullname>-admin-token` beside the
 * Service `<fullname>-operator` (the chart's orrery.adminTokenSecret). A release that brings its
 * own (admin.token.existingSecret) is not found here: the user passes --token-file.
 */
export function adminTokenSecretName(serviceName: string): string | undefined {
  return serviceName.endsWith('-operator') ? `${serviceName.slice(0, -'-operator'.length)}-admin-token` : undefined;
}
