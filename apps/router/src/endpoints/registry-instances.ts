/**
 * Maps StellMap registry instances to router endpoints. Workers register as
 * service `orrery.functions.<namespace>.<function>.<revision>` in registry namespace
 * `<namespace>`, with an endpoint named `http` and labels `orrery.dev/function`,
 * `orrery.dev/revision`. The registry lets only that revision's workers write under its service
 * name (the registration credential), but labels are whatever the writer sends: an instance is
 * used only when its namespace and labels agree with the service it is registered under, so a
 * function's workers can never label themselves into another function's traffic.
 */
import type { EndpointRecord } from '../admit/endpoint-index.ts';

export const WORKER_SERVICE_PREFIX = 'orrery.functions';

export interface RegistryInstance {
  namespace?: string;
  service?: string;
  instanceId?: string;
  labels?: Record<string, string>;
  metadata?: Record<string, string>;
  endpoints?: Array<{ name?: string; protocol?: string; host?: string; port?: number }>;
}

export function instanceId(i: RegistryInstance): string {
  return `${i.namespace ?? ''}/${i.service ?? ''}/${i.instanceId ?? ''}`;
}

function hostPort(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

export type WorkerCheck = { ok: true; record: EndpointRecord } | { ok: false; reason: string };

/**
 * An instance as a worker endpoint, or why it is not one: not under `orrery.functions.`, a
 * service that is not `orrery.functions.<its namespace>.<function>.<revision>`, labels naming
 * another function or revision (or missing), no http endpoint.
 */
export function checkWorkerInstance(i: RegistryInstance): WorkerCheck {
  if (!i.namespace || !i.service?.startsWith(`${WORKER_SERVICE_PREFIX}.`)) return { ok: false, reason: 'not an Orrery worker service' };
  const parts = i.service.split('.');
  const [, , ns, fn, rev] = parts;
  if (parts.length !== 5 || !fn || !rev) return { ok: false, reason: `service ${i.service} is not ${WORKER_SERVICE_PREFIX}.<namespace>.<function>.<revision>` };
  if (ns !== i.namespace) return { ok: false, reason: `service ${i.service} names namespace ${ns} but is registered in ${i.namespace}` };
  const labelFn = i.labels?.['orrery.dev/function'];
  const labelRev = i.labels?.['orrery.dev/revision'];
  if (labelFn !== fn || labelRev !== rev) {
    return { ok: false, reason: `labels orrery.dev/function=${labelFn ?? '(none)'} orrery.dev/revision=${labelRev ?? '(none)'} do not match the service ${i.service}` };
  }
  const ep = i.endpoints?.find((e) => e.name === 'http') ?? i.endpoints?.find((e) => e.protocol === 'http');
  if (!ep?.host || typeof ep.port !== 'number') return { ok: false, reason: 'no http endpoint' };
  // Registered means ready: the registry drops instances whose lease lapsed, and draining workers deregister.
  return { ok: true, record: { namespace: i.namespace, function: fn, revision: rev, address: hostPort(ep.host, ep.port), ready: true } };
}

/** The endpoint record of an instance, or undefined when it is not an Orrery worker with an http endpoint. */
export function instanceToEndpoint(i: RegistryInstance): EndpointRecord | undefined {
  const c = checkWorkerInstance(i);
  return c.ok ? c.record : undefined;
}
