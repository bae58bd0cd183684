import { ApiException } from '@kubernetes/client-node';

/**
 * The Kubernetes API server's refusals on the way to the admin API — finding the operator's
 * Service, reading the admin token Secret, proxying a call — worded to say which RBAC verb on
 * which resource is missing, or what else to do. The admin API's own answers (tRPC JSON) are
 * not these: they come back through the proxy unchanged and are described as from any admin API.
 */
export interface RouteFacts {
  /** The API server's URL. */
  server: string;
  /** Where the release lives (--orrery-namespace). */
  namespace: string;
  service?: string;
  secret?: string;
  /** Whose Service the route leads to: the operator's admin API (default) or the router (`orrery invoke`). */
  component?: 'operator' | 'router';
}

export type RouteStep = 'list-services' | 'read-secret' | 'proxy';

const RBAC_HINT = 'the Role in docs/cli.md ("Admin commands on Kubernetes") grants what the admin commands need';

/** `… cannot create resource "services/proxy" in API group "" …` → the verb and resource. */
function missingPermission(message: string): { verb: string; resource: string } | undefined {
  const m = /cannot (\w+) resource "([^"]+)"/.exec(message);
  return m ? { verb: m[1]!, resource: m[2]! } : undefined;
}

function forbidden(step: RouteStep, message: string, f: RouteFacts): string {
  const need = missingPermission(message);
  const what = need ? `${need.verb} on ${need.resource}` : step === 'list-services' ? 'list on services' : step === 'read-secret' ? 'get on secrets' : 'get and create on services/proxy';
  const base = `the Kubernetes API server refused (${message}): the kubeconfig's user needs ${what} in namespace ${f.namespace}`;
  switch (step) {
    case 'list-services':
      return `${base}, to find the ${f.component ?? 'operator'}'s Service; ${RBAC_HINT}`;
    case 'read-secret':
      return `${base}, to read the admin token from Secret ${f.namespace}/${f.secret ?? '?'}; pass the admin token with --token-file FILE instead, or grant get on that Secret (${RBAC_HINT})`;
    case 'proxy':
      if (f.component === 'router') return `${base}, to call functions through the API server (GET needs get, other methods create on services/proxy)`;
      return `${base}, to reach the admin API through the API server (queries are get, changes create on services/proxy); ${RBAC_HINT}`;
  }
}

function notReady(message: string, f: RouteFacts): string {
  const component = f.component ?? 'operator';
  return `the ${component} behind Service ${f.namespace}/${f.service ?? '?'} is not ready (${message}): check kubectl -n ${f.namespace} get pods -l app.kubernetes.io/component=${component}, then retry`;
}

/** What to do about an API server answer of `status` (undefined: no answer) at one step. */
export function routeRefusal(step: RouteStep, status: number | undefined, message: string, f: RouteFacts): string {
  if (status === undefined) return `the Kubernetes API server at ${f.server} did not answer (${message}): check --kubeconfig / --context / $KUBECONFIG`;
  if (status === 401) return `the Kubernetes API server at ${f.server} did not accept the credentials of the kubeconfig (${message})`;
  if (status === 403) return forbidden(step, message, f);
  if (step === 'read-secret' && status === 404) {
    return `no Secret ${f.namespace}/${f.secret ?? '?'} with the admin token (the release may bring its own, admin.token.existingSecret): pass the admin token with --token-file FILE`;
  }
  if (step === 'proxy' && status === 404) return `the API server found no Service ${f.namespace}/${f.service ?? '?'} to proxy to (${message}): is the chart still installed (helm list -n ${f.namespace})?`;
  // 503: no ready endpoint; 502: an endpoint that does not answer.
  if (step === 'proxy' && (status === 502 || status === 503)) return notReady(message, f);
  return `the Kubernetes API server answered ${status}: ${message}`;
}

/**
 * The refusal in an answer that came back through the services proxy, or undefined when the
 * answer is the admin API's own (tRPC JSON: an object with `result` or `error`, or a batch of
 * them) and tRPC should read it.
 */
export function proxyRefusal(status: number, body: string, f: RouteFacts): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    parsed = undefined;
  }
  const trpcShaped = (v: unknown) => !!v && typeof v === 'object' && ('result' in v || 'error' in v);
  if (trpcShaped(parsed) || (Array.isArray(parsed) && parsed.length > 0 && parsed.every(trpcShaped))) return undefined;
  if (status < 400) return `the API server's proxy answered ${status} without an admin API answer: is ${f.namespace}/${f.service ?? '?'} Orrery's operator?`;
  const status_ = parsed && typeof parsed === 'object' ? (parsed as { kind?: string; message?: string }) : undefined;
  const message = (status_?.kind === 'Status' ? status_.message : undefined) ?? (body.trim().slice(0, 300) || `HTTP ${status}`);
  return routeRefusal('proxy', status, message, f);
}

/** The message of an API server refusal body (a Status object, as text or parsed). */
export function apiServerMessage(body: unknown): string | undefined {
  if (typeof body === 'string') {
    try {
      return (JSON.parse(body) as { message?: string }).message ?? body;
    } catch {
      return body;
    }
  }
  return body && typeof body === 'object' ? (body as { message?: string }).message : undefined;
}

/** What to do about an error of a call to the API server at one step (an ApiException, or no answer at all). */
export function refusalOf(step: RouteStep, err: unknown, facts: RouteFacts): string {
  if (err instanceof ApiException) return routeRefusal(step, err.code, apiServerMessage(err.body) ?? `HTTP ${err.code}`, facts);
  return routeRefusal(step, undefined, (err as Error).message, facts);
}
