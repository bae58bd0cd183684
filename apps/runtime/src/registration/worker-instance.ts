/**
 * How a worker appears in the registry (StellMap data model). Five-segment service name:
 *   orrery.functions.<namespace>.<function>.<revision>
 * i.e. organization=orrery, businessDomain=functions, capabilityDomain=<namespace>,
 * application=<function>, role=<revision>; the registry namespace is the function's namespace.
 */

export const ORGANIZATION = 'orrery';
export const BUSINESS_DOMAIN = 'functions';
export const DEFAULT_LEASE_TTL_SECONDS = 30;

export interface WorkerIdentity {
  namespace: string;
  function: string;
  revision: string;
  executor: 'deploy' | 'pool';
  instanceId: string;
  host: string;
  port: number;
  /** Set when the runtime's own routes listen apart from function traffic. */
  adminPort?: number;
  containerConcurrency: number;
}

export function workerServiceName(namespace: string, fn: string, revision: string): string {
  return [ORGANIZATION, BUSINESS_DOMAIN, namespace, fn, revision].join('.');
}

export function registerBody(w: WorkerIdentity, leaseTtlSeconds = DEFAULT_LEASE_TTL_SECONDS) {
  const endpoints: { name: string; protocol: string; host: string; port: number }[] = [
    { name: 'http', protocol: 'http', host: w.host, port: w.port },
  ];
  if (w.adminPort !== undefined) endpoints.push({ name: 'admin', protocol: 'http', host: w.host, port: w.adminPort });
  return {
    namespace: w.namespace,
    organization: ORGANIZATION,
    businessDomain: BUSINESS_DOMAIN,
    capabilityDomain: w.namespace,
    application: w.function,
    role: w.revision,
    service: workerServiceName(w.namespace, w.function, w.revision),
    instanceId: w.instanceId,
    labels: {
      'orrery.dev/function': w.function,
      'orrery.dev/revision': w.revision,
      'orrery.dev/executor': w.executor,
    },
    metadata: {
      'orrery.dev/container-concurrency': String(w.containerConcurrency),
      pid: String(process.pid),
    },
    endpoints,
    leaseTtlSeconds,
  };
}

export function instanceKey(w: WorkerIdentity, leaseTtlSeconds = DEFAULT_LEASE_TTL_SECONDS) {
  return {
    namespace: w.namespace,
    service: workerServiceName(w.namespace, w.function, w.revision),
    instanceId: w.instanceId,
    leaseTtlSeconds,
  };
}
